import type { WorkOutcomeCode } from '@occ/contracts';
import type { Claim, Requeue } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, fence, matched, millis, releasedAt } from './rows.ts';

/** Full-jitter exponential backoff bounds, in milliseconds. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, capMs: 300_000 };

/**
 * A failed attempt, which stays spent (claim counted it). With attempts left the item is
 * queued again after U[0,1) × min(cap, base × 2^(attempts−1)); without, it fails for good.
 * The exponent is clamped so the float never overflows before the cap applies. The backoff counts
 * from the one instant the item was released (`updated_at`): two clock readings in one statement
 * can be milliseconds apart on a loaded host.
 */
export async function retry(q: Queryable, claim: Claim, code: WorkOutcomeCode<'retried'>, message: string, backoff: Backoff): Promise<Requeue> {
  const { rows } = await runner(q)<{ state: Requeue }>(
    `UPDATE work_items SET
       state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
       reason_code = $3, error_message = $4,
       available_at = released.at + random() * LEAST(${millis(6)}, ${millis(5)} * power(2, LEAST(attempts - 1, 40))),
       ${releasedAt('released.at')}
     FROM (SELECT clock_timestamp() AS at) AS released
     WHERE ${LIVE_CLAIM} RETURNING state`,
    [...fence(claim), code, message, backoff.baseMs, backoff.capMs],
  );
  return matched(rows, claim).state;
}
