import { PENDING_REASON_CODES } from '@occ/contracts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';

/**
 * Makes an item that waits out a convergence wait (`defer`: queued with a pending reason)
 * claimable now — its runtime's status changed, so the wait is over. Only ever brings
 * `available_at` forward, so the lane's order among items already available is kept; a retry's
 * backoff, a claimed item or a finished one is left alone. True when it hastened the item.
 */
export async function hasten(q: Queryable, key: string): Promise<boolean> {
  const { rows } = await runner(q)<{ idempotency_key: string }>(
    `UPDATE work_items SET available_at = LEAST(available_at, clock_timestamp())
     WHERE idempotency_key = $1 AND state = 'queued' AND reason_code = ANY($2::text[]) AND available_at > clock_timestamp()
     RETURNING idempotency_key`,
    [key, [...PENDING_REASON_CODES]],
  );
  return rows.length > 0;
}
