import { type AgentRevision, isRuntimeFailureCode } from '@occ/contracts';
import type { WorkItem } from '../core/ports/work-queue.ts';
import type { LeaseGuard } from './lease-guard.ts';
import { runtimeManifest } from './runtime-manifest.ts';
import type { WorkerDeps } from './worker-deps.ts';

/*
 * What runs after a candidate does not make it, decided here for every target (docs/deployments.md,
 * "Reconciliation (the worker)"); each ComputeDriver only knows how (`restoreRevision`,
 * `stopRevision`, `retireRevision`). Every effect is best effort: a target that does not answer is
 * logged and the deploy keeps its own reason code; a lost claim still ends the attempt.
 */

/**
 * A candidate ended without running (its start failed, was refused, or the attempt threw): the
 * revision the Agent's pointer names runs again [K-4], whatever the target. The pointer is read
 * now, not when the attempt began; the next attempt or recovery tries again if the target cannot.
 */
export async function bringBackActive(deps: WorkerDeps, candidate: AgentRevision, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = candidate;
  const active = await deps.state.read(async (uow) => {
    const agent = await uow.agents.get(namespaceId, agentId);
    if (!agent?.activeRevisionId || agent.activeRevisionId === candidate.id || agent.desiredState === 'stopped') return null;
    return uow.revisions.get(namespaceId, agentId, agent.activeRevisionId);
  });
  if (!active || active.computeDriverId !== deps.compute.id) return;
  await bestEffort(deps, guard, 'worker.active_not_restored', { agentId, revisionId: active.id, failedRevisionId: candidate.id }, (signal) =>
    deps.compute.restoreRevision(active, runtimeManifest(active), { kind: 'candidate-failed', revisionId: candidate.id }, { signal }),
  );
}

/**
 * Whether an earlier attempt of this item may have left its candidate running, read from how the
 * last one ended (a claim keeps the item's reason code). No: never claimed before, or a runtime
 * failure (the driver stops a failed candidate, and the worker brought the active revision back
 * then). Yes: a convergence wait, a lost claim, an attempt that threw, a pointer that moved under
 * a ready candidate. Asking the target instead would be wrong where its view lags: a pod not yet
 * scheduled, a container in the engine's restart back-off, a host that does not answer.
 */
export function earlierAttemptMayRun(item: WorkItem): boolean {
  return item.reasonCode !== null && !isRuntimeFailureCode(item.reasonCode);
}

/**
 * The deploy ends for good while its candidate runs or may — its last look found it not ready
 * (the convergence deadline passed), a later attempt is refused before any compute call (access
 * revoked, a revision the target no longer takes), or its last attempt's worker died (the closing
 * pass, closing-pass.ts). The candidate stops, keeping what it left for the operator to read —
 * nothing would ever activate it, and Recreate stopped the active revision for it — and the
 * active revision comes back. Run under the claim, before the item ends, so no
 * later work of the Agent can meet a late stop. A candidate that is already the pointer's (a
 * redeploy of the active revision) keeps running.
 */
export async function abandonCandidate(deps: WorkerDeps, candidate: AgentRevision, guard: LeaseGuard): Promise<void> {
  if (!(await givenUpHere(deps, candidate))) return;
  const { namespaceId, agentId } = candidate;
  const stopped = await bestEffort(deps, guard, 'worker.candidate_not_stopped', { agentId, revisionId: candidate.id }, (signal) =>
    deps.compute.stopRevision({ namespaceId, agentId }, candidate.id, { signal }),
  );
  if (!stopped) return;
  deps.log?.('worker.candidate_abandoned', { agentId, revisionId: candidate.id });
  await bringBackActive(deps, candidate, guard);
}

/**
 * A revision overtaken by a newer one never becomes active: what of it a target still runs — a
 * candidate an earlier attempt left starting, one prepared beside the serving revision and waiting
 * for its go, or one this attempt found ready — is retired (that revision only; nothing else of
 * the Agent is touched), and the active revision comes back if Recreate stopped it (the newer
 * revision may still end before it starts anything), before the item is cancelled. A target that
 * does not answer leaves it to the next revision's Recreate.
 */
export async function retireSuperseded(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  if (!(await givenUpHere(deps, revision))) return;
  const { namespaceId, agentId } = revision;
  const retired = await bestEffort(deps, guard, 'worker.superseded_not_retired', { agentId, revisionId: revision.id }, (signal) =>
    deps.compute.retireRevision({ namespaceId, agentId }, revision.id, { signal }),
  );
  if (retired) await bringBackActive(deps, revision, guard);
}

/**
 * The Agent was stopped while this revision was deployed: what of it a target runs stops now. The
 * stop's own work stops the active revision, and on kubernetes only the Deployment's current
 * template; before the first activation it has none to stop.
 */
export async function stopCandidateOfStoppedAgent(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = revision;
  if (revision.computeDriverId !== deps.compute.id) return;
  await bestEffort(deps, guard, 'worker.stopped_candidate_not_stopped', { agentId, revisionId: revision.id }, (signal) =>
    deps.compute.stopRevision({ namespaceId, agentId }, revision.id, { signal }),
  );
}

/** A revision given up here is neither the Agent's pointer (that one keeps running) nor admitted for another target. */
async function givenUpHere(deps: WorkerDeps, revision: AgentRevision): Promise<boolean> {
  if (revision.computeDriverId !== deps.compute.id) return false;
  const agent = await deps.state.read((uow) => uow.agents.get(revision.namespaceId, revision.agentId));
  return agent?.activeRevisionId !== revision.id;
}

/** One compute effect under the claim: true once done; a target that does not answer is logged as `event`. */
async function bestEffort(deps: WorkerDeps, guard: LeaseGuard, event: string, fields: Record<string, unknown>, effect: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
  try {
    await guard.run(effect);
    return true;
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.(event, { ...fields, error: String(error) });
    return false;
  }
}
