import type { WorkOutcomeCode } from '@occ/contracts';
import { CONVERGENCE_DEADLINE_EXCEEDED, type Claim, type Requeue } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, fence, matched, millis, releasedAt } from './rows.ts';

/**
 * A convergence wait: back to `queued` after delayMs, refunding the attempt the claim started.
 * The wait never reaches past `deadline_at` (the last look happens at the deadline); the defer of
 * the last look — an attempt claimed at or after the deadline (`last_attempt_at`, isLastLook) —
 * fails the item with CONVERGENCE_DEADLINE_EXCEEDED instead. An attempt claimed before the
 * deadline and deferred after it is due at once: the worker knew, when it looked, that this was
 * not the last look. One clock reading decides the rest (clock_timestamp() calls can be
 * milliseconds apart).
 */
export async function defer(q: Queryable, claim: Claim, code: WorkOutcomeCode<'deferred'>, delayMs: number): Promise<Requeue> {
  const { rows } = await runner(q)<{ state: Requeue }>(
    `UPDATE work_items SET
       state = CASE WHEN last_attempt_at >= deadline_at THEN 'failed' ELSE 'queued' END,
       reason_code = CASE WHEN last_attempt_at >= deadline_at THEN $5 ELSE $3 END,
       error_message = CASE WHEN last_attempt_at >= deadline_at
         THEN 'The work did not converge before its deadline (last wait: ' || $3 || ').' END,
       available_at = LEAST(released.at + ${millis(4)}, GREATEST(deadline_at, released.at)),
       attempts = attempts - 1, ${releasedAt('released.at')}
     FROM (SELECT clock_timestamp() AS at) AS released
     WHERE ${LIVE_CLAIM} RETURNING state`,
    [...fence(claim), code, Math.max(0, delayMs), CONVERGENCE_DEADLINE_EXCEEDED],
  );
  return matched(rows, claim).state;
}
