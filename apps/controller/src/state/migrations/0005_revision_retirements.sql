-- When compute confirmed a revision retired (revisions themselves are immutable, so a row of
-- its own). Activation retires only predecessors that may still run — handed to compute, no
-- retirement recorded — not every revision in the Agent's history. Revisions of earlier builds
-- have none recorded: each is retired once more, then recorded.
CREATE TABLE revision_retirements (
  revision_id text PRIMARY KEY REFERENCES agent_revisions (id) ON DELETE CASCADE,
  retired_at timestamptz NOT NULL DEFAULT now()
);
