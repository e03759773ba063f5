-- Deleting an Agent queues work that removes what its compute target still holds for it
-- (containers, a network, Kubernetes objects, files): the worker owns every compute effect.
ALTER TABLE work_items DROP CONSTRAINT work_items_kind_check;
ALTER TABLE work_items ADD CONSTRAINT work_items_kind_check
  CHECK (kind IN ('reconcile_revision', 'stop_agent', 'remove_agent'));
