-- Foundation schema: installation, namespaces, IAM, audit, secrets, configurations, agents.
-- Every namespaced table carries (namespace_id, id) as a unique key so that references
-- between resources are composite foreign keys: PostgreSQL itself refuses a link that
-- crosses a Namespace, whatever a handler does.

CREATE TABLE installation (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id text NOT NULL CHECK (id ~ '^ins_[0-9a-f-]{36}$'),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE namespaces (
  id text PRIMARY KEY CHECK (id ~ '^ns_[0-9a-f-]{36}$'),
  name text NOT NULL COLLATE "C" UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE principals (
  id text PRIMARY KEY CHECK (id ~ '^prn_[0-9a-f-]{36}$'),
  kind text NOT NULL CHECK (kind IN ('human', 'service')),
  name text NOT NULL,
  -- Set only for an Agent's own service principal; the Agent row points back.
  namespace_id text REFERENCES namespaces (id),
  agent_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((agent_id IS NULL) OR (kind = 'service' AND namespace_id IS NOT NULL))
);
CREATE UNIQUE INDEX principals_agent_unique ON principals (agent_id) WHERE agent_id IS NOT NULL;

CREATE TABLE api_keys (
  id text PRIMARY KEY CHECK (id ~ '^key_[0-9a-f-]{36}$'),
  principal_id text NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- SHA-256 of the full key; the key itself is shown once and never stored.
  key_hash bytea NOT NULL UNIQUE,
  prefix text NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE roles (
  id text PRIMARY KEY CHECK (id ~ '^role_[0-9a-f-]{36}$'),
  name text NOT NULL COLLATE "C" UNIQUE,
  permissions jsonb NOT NULL CHECK (jsonb_typeof(permissions) = 'array'),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE access_bindings (
  id text PRIMARY KEY CHECK (id ~ '^bind_[0-9a-f-]{36}$'),
  principal_id text NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  role_id text NOT NULL REFERENCES roles (id),
  namespace_id text REFERENCES namespaces (id) ON DELETE CASCADE,
  resource_kind text,
  resource_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((resource_kind IS NULL) = (resource_id IS NULL)),
  CHECK (resource_kind IS NULL OR resource_kind = 'namespace' OR namespace_id IS NOT NULL)
);
CREATE INDEX access_bindings_principal ON access_bindings (principal_id);
CREATE INDEX access_bindings_resource ON access_bindings (resource_id) WHERE resource_id IS NOT NULL;

CREATE TABLE restrictions (
  id text PRIMARY KEY CHECK (id ~ '^rst_[0-9a-f-]{36}$'),
  -- NULL principal: the restriction applies to every principal.
  principal_id text REFERENCES principals (id) ON DELETE CASCADE,
  action text NOT NULL,
  resource_kind text NOT NULL,
  namespace_id text REFERENCES namespaces (id) ON DELETE CASCADE,
  resource_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE CHECK (id ~ '^aud_[0-9a-f-]{36}$'),
  occurred_at timestamptz NOT NULL DEFAULT now(),
  actor_id text,
  action text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('success', 'denied', 'failure')),
  namespace_id text,
  resource_kind text,
  resource_id text,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE secrets (
  id text PRIMARY KEY CHECK (id ~ '^sec_[0-9a-f-]{36}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL COLLATE "C",
  driver_id text NOT NULL,
  -- Opaque to everything but the SecretDriver that sealed it.
  sealed_value text NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (namespace_id, id),
  UNIQUE (namespace_id, name)
);

CREATE TABLE configurations (
  id text PRIMARY KEY CHECK (id ~ '^cfg_[0-9a-f-]{36}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL COLLATE "C",
  generation integer NOT NULL DEFAULT 1 CHECK (generation >= 1),
  config_values jsonb NOT NULL CHECK (jsonb_typeof(config_values) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (namespace_id, id),
  UNIQUE (namespace_id, name)
);

-- Environment variables a Configuration takes from Secrets of its own Namespace.
CREATE TABLE configuration_secret_bindings (
  namespace_id text NOT NULL,
  configuration_id text NOT NULL,
  env_name text NOT NULL,
  secret_id text NOT NULL,
  PRIMARY KEY (configuration_id, env_name),
  FOREIGN KEY (namespace_id, configuration_id) REFERENCES configurations (namespace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (namespace_id, secret_id) REFERENCES secrets (namespace_id, id)
);
CREATE INDEX configuration_secret_bindings_secret ON configuration_secret_bindings (secret_id);

CREATE TABLE agents (
  id text PRIMARY KEY CHECK (id ~ '^agt_[0-9a-f-]{36}$'),
  namespace_id text NOT NULL REFERENCES namespaces (id),
  name text NOT NULL COLLATE "C",
  configuration_id text NOT NULL,
  harness text NOT NULL CHECK (harness IN ('openclaw', 'codex')),
  harness_auth_method text CHECK (harness_auth_method IN ('codex_pat')),
  harness_auth_secret_id text,
  plugins jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(plugins) = 'object'),
  plugin_approvers jsonb CHECK (plugin_approvers IS NULL OR jsonb_typeof(plugin_approvers) = 'array'),
  service_principal_id text NOT NULL UNIQUE REFERENCES principals (id),
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (namespace_id, id),
  UNIQUE (namespace_id, name),
  CHECK ((harness_auth_method IS NULL) = (harness_auth_secret_id IS NULL)),
  FOREIGN KEY (namespace_id, configuration_id) REFERENCES configurations (namespace_id, id),
  FOREIGN KEY (namespace_id, harness_auth_secret_id) REFERENCES secrets (namespace_id, id)
);
CREATE INDEX agents_configuration ON agents (configuration_id);
CREATE INDEX agents_harness_auth_secret ON agents (harness_auth_secret_id) WHERE harness_auth_secret_id IS NOT NULL;
