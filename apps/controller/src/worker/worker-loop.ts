import type { Claim } from '../core/ports/work-queue.ts';
import { ClaimLostError, LAST_LEASE_EXPIRED, LEASE_EXPIRED } from '../core/ports/work-queue.ts';
import { observedQueue, recordAttempt, type AttemptEnd } from './attempt-outcome.ts';
import { closeLostAttempt } from './closing-pass.ts';
import { ensureActiveWork } from './ensure-active.ts';
import { LeaseGuard } from './lease-guard.ts';
import { reconcileRevision } from './reconcile-revision.ts';
import { removeAgentWork } from './remove-agent.ts';
import { StatusWatches } from './status-watches.ts';
import { stopAgentWork } from './stop-agent.ts';
import { WakeSignal } from './wake-signal.ts';
import type { WorkerDeps } from './worker-deps.ts';

const HANDLERS = { reconcile_revision: reconcileRevision, stop_agent: stopAgentWork, remove_agent: removeAgentWork, ensure_active: ensureActiveWork } as const;

/**
 * One claimed item, start to finish — or a closing pass: what a last attempt whose worker died
 * left to do (closing-pass.ts). A lost claim publishes nothing: the item belongs to someone else
 * now. How the attempt ended is recorded once it has (attempt-outcome.ts).
 */
async function processClaim(given: WorkerDeps, claim: Claim, claimedAt: number): Promise<void> {
  let ended: AttemptEnd | null = null;
  const deps: WorkerDeps = given.metrics
    ? {
        ...given,
        queue: observedQueue(given.queue, (end) => {
          ended = end;
        }),
      }
    : given;
  const guard = new LeaseGuard(deps.queue, claim, deps.settings.leaseMs, claimedAt);
  try {
    await (claim.closing ? closeLostAttempt : HANDLERS[claim.item.kind])(deps, claim, guard);
    deps.log?.('work:done', { key: claim.item.key });
  } catch (error) {
    if (error instanceof ClaimLostError || guard.signal.aborted) {
      deps.log?.('work:claim-lost', { key: claim.item.key });
      ended = { outcome: 'abandoned', reason: 'CLAIM_LOST' };
      return;
    }
    deps.log?.('work:error', { key: claim.item.key, error: (error as Error).name });
    // An unexpected failure spends an attempt; the message is fixed (no foreign error text). A
    // closing pass has none to spend: the item fails for its lost attempt.
    const failed = claim.closing
      ? deps.queue.retry(claim, LEASE_EXPIRED, LAST_LEASE_EXPIRED)
      : deps.queue.retry(claim, 'WORKER_ERROR', 'The worker failed while reconciling; it will be retried.');
    await failed.catch(() => {});
  } finally {
    guard.stop();
    if (ended) await recordAttempt(deps, claim, ended);
  }
}

/**
 * The reconcile loop: claim → process → repeat; when idle, waits for `wake` (work was
 * enqueued) or the poll interval, whichever comes first — polling stays the backstop for work
 * that becomes due later (retries, convergence waits, expired leases) and for missed wakes.
 * Every `ensureActiveMs` it also arms the check that each running Agent's active revision runs
 * (ensure-active.ts), so what the database says should run is compared with the target even when
 * nobody deploys.
 * Any number of these may run against one database (in `occ up`, or as `occ worker`).
 */
export function startWorker(given: WorkerDeps, wake: WakeSignal = new WakeSignal(), after: Promise<unknown> = Promise.resolve()): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const sleep = (ms: number) => wake.wait(ms, stopping.signal);
  const statusWatches = new StatusWatches(async (key) => {
    if (await given.queue.hasten(key).catch(() => false)) wake.notify();
  }, stopping.signal);
  const deps: WorkerDeps = { ...given, statusWatches };
  const ensureEvery = given.settings.ensureActiveMs;
  let ensureArmedAt = performance.now();
  const loop = (async () => {
    // Claims begin once `after` settles (the composition's recovery of active revisions).
    await after.catch(() => {});
    while (!stopping.signal.aborted) {
      let claim: Claim | null = null;
      if (ensureEvery > 0 && performance.now() - ensureArmedAt >= ensureEvery) {
        // The level-triggered check (ensure-active.ts): one item per idle, running Agent, claimed below like any work.
        ensureArmedAt = performance.now();
        await deps.queue.armEnsureActive(deps.compute.id, ensureEvery).catch(() => deps.log?.('worker:ensure-arm-failed', {}));
      }
      wake.consume();
      const claimedAt = performance.now();
      try {
        claim = await deps.queue.claim(deps.workerId, deps.settings.leaseMs);
      } catch {
        deps.log?.('worker:claim-failed', {});
      }
      try {
        if (claim) {
          // Claimed again: its prepare reads the status itself.
          statusWatches.end(claim.item.key);
          await processClaim(deps, claim, claimedAt);
        } else await sleep(deps.settings.pollMs);
      } catch {
        // processClaim handles its own failures; whatever still escapes must not end the loop.
        await sleep(deps.settings.pollMs);
      }
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
