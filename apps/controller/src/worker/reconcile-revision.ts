import { type AgentRevision, isPermanentStartupFailure, pendingReasonCode, runtimeFailureCode } from '@occ/contracts';
import type { PrepareResult } from '../core/ports/compute-driver.ts';
import { isLastLook, type Claim } from '../core/ports/work-queue.ts';
import { abandonCandidate, bringBackActive, earlierAttemptMayRun, retireSuperseded, stopCandidateOfStoppedAgent } from './give-up-candidate.ts';
import { admittedWarnings } from './admitted-warnings.ts';
import { finishActivation } from './finish-activation.ts';
import { giveGo } from './give-go.ts';
import type { LeaseGuard } from './lease-guard.ts';
import { reauthorize } from './reauthorize.ts';
import { runtimeManifest } from './runtime-manifest.ts';
import { startupFailureMessage } from '../core/startup-failure-message.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * finalizeRevision (the seed's section 5): prepare on compute (a candidate that ends without running
 * brings the active revision back, give-up-candidate.ts; one prepared beside the serving revision
 * gets its go, give-go.ts) → when ready, compare-and-set the
 * Agent's pointer UNDER THE CLAIM → activate → retire the predecessor → complete. Before the
 * pointer moves, a failure leaves it unchanged; after, a failure keeps the candidate pointer and
 * is retried as REVISION_FINALIZATION_INCOMPLETE. There is no rollback. A deploy that ends
 * without its candidate — stopped, superseded, refused on a later attempt, or out of time on its
 * last look — first gives up what an earlier attempt (or this one) left running (give-up-candidate.ts).
 */
export async function reconcileRevision(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { queue, compute } = deps;
  const { namespaceId, agentId, revisionId } = claim.item;
  const loaded = await deps.state.read(async (uow) => ({
    revision: revisionId ? await uow.revisions.get(namespaceId, agentId, revisionId) : null,
    agent: await uow.agents.get(namespaceId, agentId),
    latest: await uow.revisions.latestNumber(agentId),
  }));
  const { revision, agent } = loaded;
  if (!revision || !agent) return queue.fail(claim, 'INVALID_TARGET', 'The revision or its Agent no longer exists.');
  // What an earlier attempt may have left running is given up before the item ends; nothing more of it starts.
  const leftRunning = earlierAttemptMayRun(claim.item);
  if (agent.desiredState === 'stopped') return stopped(deps, claim, revision, guard, leftRunning);
  // An older revision never replaces a newer one.
  if (loaded.latest > revision.revision) return supersede(deps, claim, revision, guard, leftRunning);
  if (revision.computeDriverId !== compute.id) return queue.fail(claim, 'COMPUTE_DRIVER_MISMATCH', 'The revision was admitted for another ComputeDriver.');

  // Refused before any compute call of this attempt.
  const denial = await deps.state.read((uow) => reauthorize(uow, revision));
  if (denial) {
    if (leftRunning) await abandonCandidate(deps, revision, guard);
    return queue.fail(claim, denial.code, denial.message);
  }
  try {
    compute.validateRevision(revision);
  } catch {
    if (leftRunning) await abandonCandidate(deps, revision, guard);
    return queue.fail(claim, 'INVALID_ADMITTED_REVISION', 'The ComputeDriver cannot run this revision.');
  }

  // Its last look starts no candidate and gives no go (the pointer's own revision excepted): see ComputeContext.lastLook.
  const lastLook = isLastLook(claim.item) && agent.activeRevisionId !== revision.id;
  let prepared: PrepareResult;
  try {
    prepared = await guard.run((signal) => compute.prepareRevision(revision, runtimeManifest(revision), { signal, ...(lastLook ? { lastLook } : {}) }));
  } catch (error) {
    // The attempt ended without the candidate running (the claim's own loss excepted).
    if (!guard.signal.aborted) await bringBackActive(deps, revision, guard).catch(() => {});
    throw error;
  }
  // The runtime's typed steps, for the deployment's events (read from here, not from its log).
  // Best effort: a progress row that could not be written never changes what the deploy does.
  const progress = prepared.progress;
  if (progress)
    await deps.state
      .autocommit((uow) => uow.work.recordProgress(claim.item.key, progress))
      .catch((error: unknown) => deps.log?.('worker.progress_unrecorded', { key: claim.item.key, error: String(error) }));
  if (prepared.state === 'failed') {
    await bringBackActive(deps, revision, guard);
    // Only a registry code (and a detail checked against the revision) crosses from the driver
    // into stored (and served) status; the text is ours.
    const code = runtimeFailureCode(prepared.failure.code);
    const message = startupFailureMessage(revision, code, prepared.failure.detail);
    // The same revision would fail the same way on every attempt: fail now, spend none.
    if (isPermanentStartupFailure(code)) return queue.fail(claim, code, message);
    await queue.retry(claim, code, message);
    return;
  }
  if (prepared.state === 'pending') {
    // Its last look: the defer below fails the deploy, so its candidate is given up first.
    if (isLastLook(claim.item)) await abandonCandidate(deps, revision, guard);
    // Prepared beside the serving revision: Recreate now, then its gateway (give-go.ts).
    if (prepared.awaitsGo && !lastLook) await giveGo(deps, revision, guard);
    if ((await queue.defer(claim, pendingReasonCode(prepared.reason), deps.settings.convergencePollMs)) === 'failed') return;
    // The wait ends early the moment the runtime's status changes (status-watches.ts).
    const awaitChange = compute.awaitStatusChange?.bind(compute);
    if (awaitChange) deps.statusWatches?.watch(claim.item.key, (signal) => awaitChange({ namespaceId, agentId }, revision.id, { signal }));
    return;
  }
  const warnings = admittedWarnings(revision, prepared.warnings);

  const previous = agent.activeRevisionId;
  const alreadyActive = previous === revision.id;
  if (!alreadyActive) {
    const moved = await deps.queue.withLiveClaim(claim, async (uow) => {
      // A newer revision admitted while this one prepared wins: no needless cutover.
      if ((await uow.revisions.latestNumber(agentId)) > revision.revision) return 'superseded' as const;
      return uow.agents.compareAndSetActiveRevision(namespaceId, agentId, previous, revision.id);
    });
    // This attempt found it ready: it runs.
    if (moved === 'superseded') return supersede(deps, claim, revision, guard, true);
    if (!moved) {
      const now = await deps.state.read((uow) => uow.agents.get(namespaceId, agentId));
      if (now?.desiredState === 'stopped') return stopped(deps, claim, revision, guard, true);
      await queue.retry(claim, 'ACTIVE_REVISION_CHANGED', 'The active revision changed while this one was prepared.');
      return;
    }
  }
  // Past the commit point: keep the candidate pointer whatever happens next.
  try {
    await finishActivation(deps, revision, guard);
  } catch (error) {
    if (guard.signal.aborted) throw error;
    await queue.retry(claim, 'REVISION_FINALIZATION_INCOMPLETE', 'Activation did not finish; it will be retried.');
    return;
  }
  await queue.complete(claim, alreadyActive ? 'REVISION_ALREADY_ACTIVE' : 'REVISION_ACTIVATED', { warnings });
}

async function supersede(deps: WorkerDeps, claim: Claim, revision: AgentRevision, guard: LeaseGuard, mayRun: boolean): Promise<void> {
  if (mayRun) await retireSuperseded(deps, revision, guard);
  await deps.queue.cancel(claim, 'REVISION_SUPERSEDED');
}

async function stopped(deps: WorkerDeps, claim: Claim, revision: AgentRevision, guard: LeaseGuard, mayRun: boolean): Promise<void> {
  if (mayRun) await stopCandidateOfStoppedAgent(deps, revision, guard);
  await deps.queue.cancel(claim, 'REVISION_STOPPED');
}
