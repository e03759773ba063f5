-- Deploy: immutable AgentRevisions, the Agent's active-revision pointer, and the work queue.

ALTER TABLE agents
  ADD COLUMN desired_state text NOT NULL DEFAULT 'stopped' CHECK (desired_state IN ('running', 'stopped')),
  ADD COLUMN last_revision_number integer NOT NULL DEFAULT 0 CHECK (last_revision_number >= 0),
  ADD COLUMN active_revision_id text;

CREATE TABLE agent_revisions (
  id text PRIMARY KEY CHECK (id ~ '^rev_[0-9a-f-]{36}$'),
  namespace_id text NOT NULL,
  agent_id text NOT NULL,
  revision_number integer NOT NULL CHECK (revision_number >= 1),
  -- The whole admitted snapshot (policy-only plugin map, driver ids, configuration, refs).
  spec jsonb NOT NULL CHECK (jsonb_typeof(spec) = 'object'),
  actor_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (agent_id, revision_number),
  UNIQUE (namespace_id, agent_id, id),
  FOREIGN KEY (namespace_id, agent_id) REFERENCES agents (namespace_id, id)
);

-- Revisions are immutable: no statement may change one after it is admitted.
CREATE FUNCTION agent_revisions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'agent revisions are immutable' USING ERRCODE = 'P0001';
END $$;
CREATE TRIGGER agent_revisions_no_update BEFORE UPDATE ON agent_revisions
  FOR EACH ROW EXECUTE FUNCTION agent_revisions_immutable();

-- The pointer names a revision of this very Agent in this very Namespace.
ALTER TABLE agents ADD CONSTRAINT agents_active_revision_fkey
  FOREIGN KEY (namespace_id, id, active_revision_id) REFERENCES agent_revisions (namespace_id, agent_id, id);

CREATE TABLE work_items (
  idempotency_key text PRIMARY KEY,
  id text NOT NULL UNIQUE CHECK (id ~ '^wrk_[0-9a-f-]{36}$'),
  kind text NOT NULL CHECK (kind IN ('reconcile_revision', 'stop_agent')),
  -- At most one claimed item per lane (an Agent): its work is never done by two workers at once.
  lane text NOT NULL,
  namespace_id text NOT NULL,
  agent_id text NOT NULL,
  revision_id text,
  actor_id text NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'claimed', 'succeeded', 'failed')),
  available_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  deadline_at timestamptz NOT NULL,
  claim_token uuid,
  claimed_by text,
  lease_expires_at timestamptz,
  last_attempt_at timestamptz,
  reason_code text,
  error_message text,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'claimed') = (claim_token IS NOT NULL AND lease_expires_at IS NOT NULL))
);
CREATE UNIQUE INDEX work_items_one_claim_per_lane ON work_items (lane) WHERE state = 'claimed';
CREATE INDEX work_items_claimable ON work_items (available_at) WHERE state = 'queued';
CREATE INDEX work_items_leases ON work_items (lease_expires_at) WHERE state = 'claimed';
CREATE INDEX work_items_revision ON work_items (revision_id) WHERE revision_id IS NOT NULL;
