import type { RuntimeProgressStep } from '@occ/contracts';
import type { RuntimeProgress } from '../../core/ports/compute-driver.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';

/** Startups of one work item kept at most: a runtime restarting without end does not grow the table without end. */
const MAX_STARTUPS_PER_ITEM = 64;

/**
 * Stores one startup's progress for the work item `key` (docs/deployments.md, "Deployment
 * events"). A startup's row only grows: a read that raced an older one never shortens it. Nothing
 * is written for an item that is gone (the Agent deleted meanwhile) or past its bound.
 */
export async function recordProgress(q: Queryable, key: string, progress: RuntimeProgress): Promise<void> {
  await runner(q)(
    `INSERT INTO work_item_progress (idempotency_key, startup_id, steps)
       SELECT $1, $2, $3::jsonb
       WHERE EXISTS (SELECT 1 FROM work_items WHERE idempotency_key = $1)
         AND (SELECT count(*) FROM work_item_progress WHERE idempotency_key = $1 AND startup_id <> $2) < $4
     ON CONFLICT (idempotency_key, startup_id) DO UPDATE SET steps = EXCLUDED.steps
       WHERE jsonb_array_length(EXCLUDED.steps) > jsonb_array_length(work_item_progress.steps)`,
    [key, progress.startupId, JSON.stringify(progress.steps), MAX_STARTUPS_PER_ITEM],
  );
}

/** Every startup's progress stored for the work item `key`, in the order the startups were first recorded. */
export async function readProgress(q: Queryable, key: string): Promise<RuntimeProgress[]> {
  const { rows } = await runner(q)<{ startup_id: string; steps: RuntimeProgressStep[] }>(
    'SELECT startup_id, steps FROM work_item_progress WHERE idempotency_key = $1 ORDER BY recorded_at, startup_id',
    [key],
  );
  return rows.map((row) => ({ startupId: row.startup_id, steps: row.steps }));
}
