-- Single sign-on (docs/sign-in.md): one OpenID provider per Installation, sign-in rules that turn
-- an ID token's groups into access bindings, the people it signed in, their pending sign-ins, and
-- sessions that are not an API key's.

-- The provider. Its client secret is a Secret (composite key, so a Secret in use cannot be deleted).
CREATE TABLE sign_in_provider (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  issuer text NOT NULL CHECK (length(issuer) BETWEEN 8 AND 2048),
  client_id text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 255),
  client_secret_namespace_id text NOT NULL,
  client_secret_id text NOT NULL,
  public_url text NOT NULL CHECK (length(public_url) BETWEEN 8 AND 2048),
  scopes text[] NOT NULL,
  groups_claim text NOT NULL,
  refresh_interval_seconds integer NOT NULL CHECK (refresh_interval_seconds BETWEEN 60 AND 3600),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sign_in_provider_client_secret_fkey FOREIGN KEY (client_secret_namespace_id, client_secret_id) REFERENCES secrets (namespace_id, id)
);

-- A rule grants its role at its scope (as an access binding would) to whoever's claim holds value.
CREATE TABLE sign_in_rules (
  id text PRIMARY KEY CHECK (id ~ '^sir_[0-9a-f-]{36}$'),
  claim text NOT NULL,
  value text NOT NULL,
  role_id text NOT NULL REFERENCES roles (id),
  namespace_id text REFERENCES namespaces (id) ON DELETE CASCADE,
  resource_kind text,
  resource_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((resource_kind IS NULL) = (resource_id IS NULL)),
  CHECK (resource_kind IS NULL OR resource_kind = 'namespace' OR namespace_id IS NOT NULL)
);
CREATE INDEX sign_in_rules_role ON sign_in_rules (role_id);

-- The bindings a rule granted: gone with the rule, replaced at every sign-in and session refresh.
ALTER TABLE access_bindings ADD COLUMN sign_in_rule_id text REFERENCES sign_in_rules (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX access_bindings_sign_in_rule ON access_bindings (principal_id, sign_in_rule_id) WHERE sign_in_rule_id IS NOT NULL;

-- The person behind a principal created at sign-in: the provider's (issuer, subject), never an email.
CREATE TABLE external_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  principal_id text NOT NULL UNIQUE REFERENCES principals (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);

-- A sign-in under way: a browser's (state, nonce, PKCE verifier, bound to the browser by a cookie)
-- or a device grant's (its device code, sealed). Keyed by a hash of what the client holds; used once.
CREATE TABLE sign_in_attempts (
  id_hash bytea PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('browser', 'device')),
  browser_hash bytea,
  nonce text,
  code_verifier text,
  device_code_sealed text,
  interval_seconds integer,
  next_poll_at timestamptz,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'browser') = (browser_hash IS NOT NULL AND nonce IS NOT NULL AND code_verifier IS NOT NULL)),
  CHECK ((kind = 'device') = (device_code_sealed IS NOT NULL))
);
CREATE INDEX sign_in_attempts_expiry ON sign_in_attempts (expires_at);

-- Sessions signed in through the provider have no API key: their principal's identity instead, the
-- provider's tokens (sealed, for refresh and sign-out), when the groups are next re-read, and when
-- the session was last used (idle timeout), and who is refreshing it now (a claim, its holder's
-- random id: only the holder may store the result or give the claim back).
-- `cli` sessions are presented as a bearer token.
ALTER TABLE console_sessions
  ALTER COLUMN api_key_id DROP NOT NULL,
  ADD COLUMN kind text NOT NULL DEFAULT 'console' CHECK (kind IN ('console', 'cli')),
  ADD COLUMN issuer text,
  ADD COLUMN provider_tokens_sealed text,
  ADD COLUMN refresh_due_at timestamptz,
  ADD COLUMN refresh_claimed_until timestamptz,
  ADD COLUMN refresh_claim text,
  ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
  ADD CONSTRAINT console_sessions_credential CHECK ((api_key_id IS NULL) = (issuer IS NOT NULL)),
  ADD CONSTRAINT console_sessions_refresh CHECK ((issuer IS NULL) = (refresh_due_at IS NULL));
