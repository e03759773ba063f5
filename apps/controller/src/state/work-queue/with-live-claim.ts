import type { Claim } from '../../core/ports/work-queue.ts';
import type { Database, Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, fence, matched } from './rows.ts';

/**
 * Runs `fn` in one transaction that first locks the item under its live claim. The row lock
 * holds off every other worker's claim (SKIP LOCKED) until the transaction ends, so nothing
 * can take the item over while `fn` writes. A lost claim throws before `fn` runs.
 */
export async function withLiveClaim<Tx, T>(db: Database, bind: (q: Queryable) => Tx, claim: Claim, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (q) => {
    const { rows } = await runner(q)(`SELECT 1 FROM work_items WHERE ${LIVE_CLAIM} FOR UPDATE`, fence(claim));
    matched(rows, claim);
    return fn(bind(q));
  });
}
