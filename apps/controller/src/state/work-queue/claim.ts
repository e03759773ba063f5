import { randomUUID } from 'node:crypto';
import { LAST_LEASE_EXPIRED, LEASE_EXPIRED, type Claim } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { StateError, runner } from '../errors.ts';
import { WORK_COLUMNS, millis, toWorkItem, type WorkRow } from './rows.ts';

/**
 * One statement claims one item:
 * 1. `expired`: a claim whose lease has passed is recovered FIRST. It still holds its lane's
 *    claimed slot, so it is the only item of that lane anyone may take.
 * 2. `queued`: otherwise the oldest available item whose lane holds no claim at all and that
 *    is its lane's oldest queued item — work somebody asked for before the worker's own periodic
 *    checks (`ensure_active`), and a check never holds up its own lane's requested work either (it
 *    is passed over, and finds that work when its turn comes): a deploy never waits for a check. That last test reads the snapshot, not locks: a claimer
 *    that SKIPs a lane head locked by a concurrent claimer must not take the item behind it
 *    (FIFO per lane), so it moves on to another lane.
 * Both lock with SKIP LOCKED, so concurrent claimers pass each other by. An expired claim that
 * has no attempt left is claimed once more as a closing pass (`closing`: no attempt started, its
 * time noted in closing_claimed_at), so a worker ends it with what the lost attempt left to do
 * (worker/closing-pass.ts); a closing pass that expires too fails with LEASE_EXPIRED instead of
 * being claimed again.
 * `claim` otherwise starts an attempt: attempts + 1 and last_attempt_at = now(); the attempt's first
 * claim also appends now() to attempt_claimed_at (a re-claim after a convergence wait finds its
 * attempt's time already there).
 */
const CLAIM = `
WITH expired AS (
  SELECT idempotency_key, attempts >= max_attempts AS exhausted, closing_claimed_at IS NOT NULL AS closed FROM work_items
  WHERE state = 'claimed' AND lease_expires_at <= now()
  ORDER BY lease_expires_at LIMIT 1 FOR UPDATE SKIP LOCKED
), queued AS (
  SELECT w.idempotency_key FROM work_items w
  WHERE w.state = 'queued' AND w.available_at <= now() AND NOT EXISTS (SELECT 1 FROM expired)
    AND NOT EXISTS (SELECT 1 FROM work_items c WHERE c.lane = w.lane AND c.state = 'claimed')
    AND NOT EXISTS (SELECT 1 FROM work_items o WHERE o.lane = w.lane AND o.state = 'queued' AND o.available_at < w.available_at
                    AND (o.kind <> 'ensure_active' OR w.kind = 'ensure_active'))
  ORDER BY w.kind = 'ensure_active', w.available_at LIMIT 1 FOR UPDATE SKIP LOCKED
), pick AS (
  SELECT idempotency_key, true AS recovered, exhausted AND closed AS spent, exhausted AND NOT closed AS closing FROM expired
  UNION ALL SELECT idempotency_key, false, false, false FROM queued
)
UPDATE work_items w SET
  state = CASE WHEN p.spent THEN 'failed' ELSE 'claimed' END,
  claim_token = CASE WHEN p.spent THEN NULL ELSE $2::uuid END,
  lease_expires_at = CASE WHEN p.spent THEN NULL ELSE now() + ${millis(3)} END,
  claimed_by = $1,
  attempts = w.attempts + CASE WHEN p.spent OR p.closing THEN 0 ELSE 1 END,
  last_attempt_at = CASE WHEN p.spent OR p.closing THEN w.last_attempt_at ELSE now() END,
  attempt_claimed_at = CASE WHEN p.spent OR p.closing OR cardinality(w.attempt_claimed_at) > w.attempts THEN w.attempt_claimed_at
    ELSE array_append(w.attempt_claimed_at, now()) END,
  closing_claimed_at = CASE WHEN p.closing THEN now() ELSE w.closing_claimed_at END,
  reason_code = CASE WHEN p.recovered THEN $4 ELSE w.reason_code END,
  error_message = CASE WHEN p.spent THEN $5 ELSE w.error_message END,
  updated_at = now()
FROM pick p WHERE w.idempotency_key = p.idempotency_key
RETURNING ${WORK_COLUMNS.replace(/(\w+)/g, 'w.$1')}, p.closing`;

/**
 * Why a claim statement may fail harmlessly and be tried again: another claimer took the same
 * lane between our read and our write (the lane index), or a lock cycle/serialization failure.
 */
const retryable = (e: unknown) =>
  e instanceof StateError && ((e.sqlState === '23505' && e.constraint === 'work_items_one_claim_per_lane') || e.sqlState === '40P01' || e.sqlState === '40001');

/** Bounds the statement retries of one `claim` call; past it the call reports nothing claimable. */
const MAX_TRIES = 16;

export async function claimWork(q: Queryable, workerId: string, leaseMs: number): Promise<Claim | null> {
  const run = runner(q);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const token = randomUUID();
    let row: (WorkRow & { closing: boolean }) | undefined;
    try {
      row = (await run<WorkRow & { closing: boolean }>(CLAIM, [workerId, token, leaseMs, LEASE_EXPIRED, LAST_LEASE_EXPIRED])).rows[0];
    } catch (error) {
      if (retryable(error)) continue;
      throw error;
    }
    if (!row) return null;
    // A closing pass that expired too was failed, not claimed: look for the next item.
    if (row.state !== 'claimed') continue;
    return { item: toWorkItem(row), token, leaseExpiresAt: new Date(row.lease_expires_at!), ...(row.closing ? { closing: true } : {}) };
  }
  return null;
}
