-- The runtime's typed startup progress, as the worker read it from each startup's trusted status
-- (one row per runtime startup of a work item): the deployment event stream replays a deploy's
-- steps from here, not from the runtime's log. `steps` is a JSON array of RuntimeProgressStep
-- (closed step names, selection keys, install results, failure codes); a startup's row only grows.
CREATE TABLE work_item_progress (
  idempotency_key text NOT NULL REFERENCES work_items (idempotency_key) ON DELETE CASCADE,
  startup_id text NOT NULL CHECK (startup_id ~ '^[A-Za-z0-9_-]{16,64}$'),
  steps jsonb NOT NULL CHECK (jsonb_typeof(steps) = 'array'),
  -- When the startup was first recorded (its row's order among the item's startups).
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (idempotency_key, startup_id)
);
