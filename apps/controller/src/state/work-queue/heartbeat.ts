import type { Claim } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, fence, matched, millis } from './rows.ts';

/** Extends a live lease to now() + leaseMs (database clock) and returns the new expiry. */
export async function heartbeat(q: Queryable, claim: Claim, leaseMs: number): Promise<Date> {
  const { rows } = await runner(q)<{ lease_expires_at: Date }>(
    `UPDATE work_items SET lease_expires_at = clock_timestamp() + ${millis(3)}, updated_at = clock_timestamp()
     WHERE ${LIVE_CLAIM} RETURNING lease_expires_at`,
    [...fence(claim), leaseMs],
  );
  return new Date(matched(rows, claim).lease_expires_at);
}
