/**
 * The work queue port: durable, leased, fenced work items (docs/deployments.md, "Reconciliation (the worker)").
 *
 * Two faces, because the two sides own their transactions differently:
 * - {@link WorkQueueWriter} is bound to the CALLER's transaction (one per unit of work), so
 *   admission writes the revision, its work item and the audit event atomically. A bound
 *   object is type-safe where an opaque transaction handle would have to be cast back.
 * - {@link WorkQueue} is the worker's side; each call is its own statement or transaction.
 *
 * Invariants (the adapter MUST keep them):
 * - AT MOST ONE claimed item per lane (an Agent), enforced by a unique index.
 * - EVERY transition after a claim matches key + claim token + state `claimed` + an unexpired
 *   lease in one statement, or throws {@link ClaimLostError}: a worker whose lease ran out can
 *   never complete, fail, defer, retry or write under the item again.
 * - Time is the database clock, never the worker's.
 * - `attempts` counts attempts STARTED: `claim` increments it (and sets `lastAttemptAt`);
 *   `defer` refunds it (a convergence wait spends nothing); `retry` keeps it (spent). So a
 *   worker that dies mid-attempt has spent that attempt too; a closing pass starts none.
 * - `attemptClaimedAt` records when each attempt number was FIRST claimed (a re-claim after a
 *   `defer` keeps it), so it always holds at least `attempts` entries.
 */

import type { StoredReasonCode, WorkOutcomeCode } from '@occ/contracts';

/**
 * `remove_agent`: after an Agent was deleted, remove what its compute target still holds for it.
 * `ensure_active`: the periodic check that a running Agent's active revision runs on its target
 * (worker/ensure-active.ts), armed by the worker itself ({@link WorkQueue.armEnsureActive}).
 */
export const WORK_KINDS = ['reconcile_revision', 'stop_agent', 'remove_agent', 'ensure_active'] as const;
/** The actor of the work the worker arms itself (`ensure_active`): no principal asked for it. */
export const WORKER_ACTOR = 'occ:worker';
export type WorkKind = (typeof WORK_KINDS)[number];
/** `cancelled`: overtaken before it was done (a newer revision, a stop); neither success nor failure. */
export type WorkState = 'queued' | 'claimed' | 'succeeded' | 'failed' | 'cancelled';

export interface WorkItem {
  key: string;
  id: string;
  kind: WorkKind;
  /** Items of one lane run one at a time, oldest available first. */
  lane: string;
  namespaceId: string;
  agentId: string;
  revisionId: string | null;
  actorId: string;
  state: WorkState;
  /** When a queued item may next be claimed (the next attempt time). */
  availableAt: string;
  attempts: number;
  maxAttempts: number;
  /**
   * The convergence deadline: the last look at a converging item is an attempt claimed at or
   * after it ({@link isLastLook}), and that attempt's `defer` fails the item with
   * `CONVERGENCE_DEADLINE_EXCEEDED`.
   */
  deadlineAt: string;
  lastAttemptAt: string | null;
  /**
   * Element n − 1: when attempt n was first claimed, by the database clock (null for attempts
   * stored before these times were). The history the deployment events replay in order.
   */
  attemptClaimedAt: ReadonlyArray<string | null>;
  /** Set while claimed: a claimed item whose lease has passed is recoverable (status `queued`). */
  leaseExpiresAt: string | null;
  /** One of the registry's codes (WORK_OUTCOMES in @occ/contracts). */
  reasonCode: StoredReasonCode | null;
  errorMessage: string | null;
  result: unknown;
  createdAt: string;
  updatedAt: string;
}

/** A claim: the item as claimed, its fencing token, and the lease the database granted. */
export interface Claim {
  readonly item: WorkItem;
  readonly token: string;
  readonly leaseExpiresAt: Date;
  /**
   * A closing pass: the lease of the item's last attempt ran out (its worker died or stalled). No
   * attempt starts; the handler ends the item with what is left to do (worker/closing-pass.ts) —
   * whatever it calls, no attempt is left to requeue it. Handed out once per item.
   */
  readonly closing?: true;
}

export interface EnqueueRequest {
  /** Idempotency key, e.g. `agent_revision:<rev>:reconcile`. */
  key: string;
  kind: WorkKind;
  lane: string;
  namespaceId: string;
  agentId: string;
  revisionId?: string;
  actorId: string;
  maxAttempts: number;
  deadlineAt: Date;
}

/**
 * Whether this claim is the item's last look: its attempt was claimed (the database's time) at or
 * after the deadline (set at admission), so a `defer` now fails the item — the same comparison the
 * queue makes. The worker learns it before it defers, while it still holds the claim: what a
 * deploy leaves behind is cleaned up under it.
 */
export function isLastLook(item: WorkItem): boolean {
  return item.lastAttemptAt !== null && Date.parse(item.lastAttemptAt) >= Date.parse(item.deadlineAt);
}

/** Where a `retry` or `defer` left the item. */
export type Requeue = 'queued' | 'failed';

/** Reason codes the queue itself writes. */
export const LEASE_EXPIRED = 'LEASE_EXPIRED' satisfies WorkOutcomeCode<'retried'>;
/** The message of an item that failed because its last attempt's lease ran out. */
export const LAST_LEASE_EXPIRED = 'The lease expired during the last attempt.';
export const CONVERGENCE_DEADLINE_EXCEEDED = 'CONVERGENCE_DEADLINE_EXCEEDED' satisfies WorkOutcomeCode<'failed'>;

/** Thrown when a transition no longer matches the live claim (token replaced, lease expired, item finished). */
export class ClaimLostError extends Error {
  readonly code = 'CLAIM_LOST' satisfies WorkOutcomeCode<'abandoned'>;

  constructor(readonly key: string) {
    super('The work item claim is no longer held (lease expired or taken over).');
    this.name = 'ClaimLostError';
  }
}

/** The admission side, bound to one open transaction. */
export interface WorkQueueWriter {
  /** Idempotent on `key`: an existing item is returned unchanged (it must name the same work). */
  enqueue(req: EnqueueRequest): Promise<WorkItem>;
}

/**
 * The worker side. `Tx` is what `withLiveClaim` hands its callback: the composition root
 * binds it to the unit of work, so domain writes share the claim-checking transaction.
 */
export interface WorkQueue<Tx = unknown> {
  /**
   * Claims the oldest available item of a lane without a claim (`FOR UPDATE SKIP LOCKED`);
   * an item whose lease expired is recovered first (`LEASE_EXPIRED` noted as its last reason; with
   * no attempt left, claimed once as a {@link Claim.closing} pass, and failed with it when that pass
   * expires too). Null when nothing is claimable now.
   */
  claim(workerId: string, leaseMs: number): Promise<Claim | null>;
  /** Extends the lease to `now() + leaseMs`; returns the new expiry. */
  heartbeat(claim: Claim, leaseMs: number): Promise<Date>;
  /** Terminal success with its reason code and result data. */
  complete(claim: Claim, code: WorkOutcomeCode<'succeeded'>, result: unknown): Promise<void>;
  /** Terminal, not done: the work was overtaken (state `cancelled`, no result). */
  cancel(claim: Claim, code: WorkOutcomeCode<'cancelled'>): Promise<void>;
  /**
   * Convergence wait: requeues after `delayMs` (never past the deadline) without spending
   * an attempt. On the last look ({@link isLastLook}) the item fails with
   * `CONVERGENCE_DEADLINE_EXCEEDED`; an attempt claimed before the deadline that defers after it
   * is requeued for at once, so the failing defer always comes from a last look.
   */
  defer(claim: Claim, code: WorkOutcomeCode<'deferred'>, delayMs: number): Promise<Requeue>;
  /**
   * Ends the convergence wait of a deferred item now (its runtime's status changed): claimable at
   * once. Nothing for an item that is claimed, finished or in a retry's backoff. Needs no claim.
   */
  hasten(key: string): Promise<boolean>;
  /**
   * A failed attempt: requeues with full-jitter exponential backoff
   * (`U[0,1) × min(cap, base × 2^(attempts−1))`), or fails for good once attempts reach maxAttempts.
   */
  retry(claim: Claim, code: WorkOutcomeCode<'retried'>, message: string): Promise<Requeue>;
  /** Permanent failure. */
  fail(claim: Claim, code: WorkOutcomeCode<'failed'>, message: string): Promise<void>;
  /**
   * Runs `fn` in one transaction after locking the item and verifying the live claim; the
   * row lock keeps every other worker off the item until the transaction ends. Otherwise
   * throws {@link ClaimLostError} and `fn` never runs. Rolls back when `fn` throws.
   */
  withLiveClaim<T>(claim: Claim, fn: (tx: Tx) => Promise<T>): Promise<T>;
  get(key: string): Promise<WorkItem | null>;
  /**
   * Arms an `ensure_active` item for every running Agent whose active revision is on
   * `computeDriverId` and whose lane is idle, due at a random moment of the next `spreadMs`; at
   * most one is ever open per Agent (its key is the Agent's). Returns how many it armed. Needs no claim.
   */
  armEnsureActive(computeDriverId: string, spreadMs: number): Promise<number>;
}
