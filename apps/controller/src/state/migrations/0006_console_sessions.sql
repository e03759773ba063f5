-- Console sign-in sessions (docs/api.md, "Console sessions"). A session is exchanged for an API
-- key and lives no longer than it: it is valid only while that key is unrevoked and unexpired
-- (checked on every request by joining api_keys), and goes with the key or its principal.
-- Only hashes are stored: SHA-256 of the cookie's token and of the CSRF token.
CREATE TABLE console_sessions (
  id text PRIMARY KEY CHECK (id ~ '^ses_[0-9a-f-]{36}$'),
  token_hash bytea NOT NULL UNIQUE,
  principal_id text NOT NULL REFERENCES principals (id) ON DELETE CASCADE,
  api_key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  csrf_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX console_sessions_api_key ON console_sessions (api_key_id);
