-- A work item overtaken before it was done (a newer revision, a stop, a redeploy after a stop)
-- ends `cancelled`, not `succeeded`: it neither did its work nor failed at it.
ALTER TABLE work_items DROP CONSTRAINT work_items_state_check;
ALTER TABLE work_items ADD CONSTRAINT work_items_state_check
  CHECK (state IN ('queued', 'claimed', 'succeeded', 'failed', 'cancelled'));

-- Items stored as succeeded by earlier builds although they were overtaken.
UPDATE work_items SET state = 'cancelled', result = NULL, updated_at = now()
  WHERE state = 'succeeded' AND reason_code IN ('REVISION_SUPERSEDED', 'REVISION_STOPPED', 'STOP_SUPERSEDED');
