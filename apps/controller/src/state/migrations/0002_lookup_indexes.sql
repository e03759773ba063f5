-- Lookups on hot or cascading paths: restrictions are read on every authenticated request;
-- the others back deletes and "still in use" checks.
CREATE INDEX restrictions_principal ON restrictions (principal_id);
CREATE INDEX restrictions_resource ON restrictions (resource_id) WHERE resource_id IS NOT NULL;
CREATE INDEX api_keys_principal ON api_keys (principal_id);
CREATE INDEX access_bindings_role ON access_bindings (role_id);
