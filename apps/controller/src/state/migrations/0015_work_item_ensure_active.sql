-- The worker's periodic check that each running Agent's active revision still runs on its compute
-- target (docs/deployments.md, "The active revision keeps running"): one `ensure_active` item per
-- Agent, armed again after it finished.
ALTER TABLE work_items DROP CONSTRAINT work_items_kind_check;
ALTER TABLE work_items ADD CONSTRAINT work_items_kind_check
  CHECK (kind IN ('reconcile_revision', 'stop_agent', 'remove_agent', 'ensure_active'));
-- "Does this lane hold open work?" is asked per Agent at every arming and every check: open items
-- only, never the history.
CREATE INDEX work_items_open_by_lane ON work_items (lane) WHERE state IN ('queued', 'claimed');
