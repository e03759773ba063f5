import { WORKER_ACTOR, type WorkQueue } from '../../core/ports/work-queue.ts';
import type { Database, Queryable } from '../database.ts';
import { armEnsureActive } from './arm-ensure-active.ts';
import { cancel } from './cancel.ts';
import { claimWork } from './claim.ts';
import { complete } from './complete.ts';
import { defer } from './defer.ts';
import { fail } from './fail.ts';
import { getWorkItem } from './get.ts';
import { hasten } from './hasten.ts';
import { heartbeat } from './heartbeat.ts';
import { DEFAULT_BACKOFF, retry, type Backoff } from './retry.ts';
import { withLiveClaim } from './with-live-claim.ts';

export { workQueueWriter } from './enqueue.ts';
export { workChannel } from './wake.ts';
export type { Backoff } from './retry.ts';

/** An `ensure_active` item never defers, so its deadline only has to be later than its one attempt (after its spread). */
const ENSURE_DEADLINE_MS = 10 * 60_000;

export interface WorkQueueOptions {
  /** Retry backoff bounds; default 1 s base, 5 min cap. */
  backoff?: Backoff;
}

/**
 * The PostgreSQL work queue (the same SQL runs on PGlite). Each operation lives in its own
 * file as one function over a Queryable; this only binds them to a database. `bind` turns the
 * claim-checking transaction into what `withLiveClaim` callbacks receive (the unit of work).
 */
export function createWorkQueue(db: Database, options?: WorkQueueOptions): WorkQueue<Queryable>;
export function createWorkQueue<Tx>(db: Database, options: WorkQueueOptions & { bind: (q: Queryable) => Tx }): WorkQueue<Tx>;
export function createWorkQueue<Tx>(db: Database, options: WorkQueueOptions & { bind?: (q: Queryable) => Tx } = {}): WorkQueue<Tx> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const bind = options.bind ?? ((q: Queryable) => q as Tx);
  return {
    claim: (workerId, leaseMs) => claimWork(db, workerId, leaseMs),
    heartbeat: (claim, leaseMs) => heartbeat(db, claim, leaseMs),
    complete: (claim, code, result) => complete(db, claim, code, result),
    cancel: (claim, code) => cancel(db, claim, code),
    defer: (claim, code, delayMs) => defer(db, claim, code, delayMs),
    hasten: (key) => hasten(db, key),
    retry: (claim, code, message) => retry(db, claim, code, message, backoff),
    fail: (claim, code, message) => fail(db, claim, code, message),
    withLiveClaim: (claim, fn) => withLiveClaim(db, bind, claim, fn),
    get: (key) => getWorkItem(db, key),
    armEnsureActive: (computeDriverId, spreadMs) => armEnsureActive(db, computeDriverId, WORKER_ACTOR, spreadMs, spreadMs + ENSURE_DEADLINE_MS),
  };
}
