import type { WorkOutcomeKind, WorkReasonCode } from '@occ/contracts';
import type { UnitOfWork } from '../core/ports/state.ts';
import { CONVERGENCE_DEADLINE_EXCEEDED, type Claim, type WorkQueue } from '../core/ports/work-queue.ts';
import type { WorkerDeps } from './worker-deps.ts';

/** How one attempt ended: the transition its handler made, as it left the item. */
export interface AttemptEnd {
  outcome: WorkOutcomeKind;
  reason: WorkReasonCode;
}

/**
 * The queue as one claim's handler sees it: each transition that ends the attempt, once it has
 * been written, is told to `ended` — a `retry` or `defer` that left the item failed (attempts
 * spent, deadline passed) as the failure it became. A transition that threw told nothing.
 */
export function observedQueue(queue: WorkQueue<UnitOfWork>, ended: (end: AttemptEnd) => void): WorkQueue<UnitOfWork> {
  return {
    claim: (workerId, leaseMs) => queue.claim(workerId, leaseMs),
    heartbeat: (claim, leaseMs) => queue.heartbeat(claim, leaseMs),
    hasten: (key) => queue.hasten(key),
    withLiveClaim: (claim, fn) => queue.withLiveClaim(claim, fn),
    get: (key) => queue.get(key),
    armEnsureActive: (computeDriverId, spreadMs) => queue.armEnsureActive(computeDriverId, spreadMs),
    async complete(claim, code, result) {
      await queue.complete(claim, code, result);
      ended({ outcome: 'succeeded', reason: code });
    },
    async cancel(claim, code) {
      await queue.cancel(claim, code);
      ended({ outcome: 'cancelled', reason: code });
    },
    async fail(claim, code, message) {
      await queue.fail(claim, code, message);
      ended({ outcome: 'failed', reason: code });
    },
    async retry(claim, code, message) {
      const left = await queue.retry(claim, code, message);
      ended({ outcome: left === 'failed' ? 'failed' : 'retried', reason: code });
      return left;
    },
    async defer(claim, code, delayMs) {
      const left = await queue.defer(claim, code, delayMs);
      ended(left === 'failed' ? { outcome: 'failed', reason: CONVERGENCE_DEADLINE_EXCEEDED } : { outcome: 'deferred', reason: code });
      return left;
    },
  };
}

/**
 * Records how the attempt ended and, for a deploy that reached a terminal state, how long it
 * took from admission: the revision's creation to the item's last transition, both stamped by
 * the database clock (one short read, only when a deploy finishes). Best effort: a failed read
 * costs the duration, never the worker.
 */
export async function recordAttempt(deps: WorkerDeps, claim: Claim, end: AttemptEnd): Promise<void> {
  const { metrics } = deps;
  if (!metrics) return;
  const { item } = claim;
  metrics.workAttempt({ kind: item.kind, outcome: end.outcome, reason: end.reason });
  if (item.kind !== 'reconcile_revision' || !item.revisionId || (end.outcome !== 'succeeded' && end.outcome !== 'failed')) return;
  const { revisionId } = item;
  const outcome = end.outcome;
  try {
    const finished = await deps.state.read(async (uow) => ({
      revision: await uow.revisions.get(item.namespaceId, item.agentId, revisionId),
      item: await uow.work.get(item.key),
    }));
    if (!finished.revision || !finished.item) return;
    const seconds = (Date.parse(finished.item.updatedAt) - Date.parse(finished.revision.createdAt)) / 1000;
    metrics.deployFinished({ compute: finished.revision.computeDriverId, harness: finished.revision.harness, outcome, seconds: Math.max(0, seconds) });
  } catch (error) {
    deps.log?.('worker.deploy_duration_unrecorded', { key: item.key, error: String(error) });
  }
}
