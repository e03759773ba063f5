import type { AgentRevision } from '@occ/contracts';
import type { LeaseGuard } from './lease-guard.ts';
import { runtimeManifest } from './runtime-manifest.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * A candidate ended without running (its start failed, was refused, or the attempt threw): the
 * revision the Agent's pointer names runs again [K-4], whatever the target. This is the one place
 * that decides it (docs/deployments.md, "Local compute"); each ComputeDriver only knows how
 * (`restoreRevision`). The pointer is read now, not when the attempt began. Best effort: a target
 * that cannot restore it now is logged, and the next attempt or recovery tries again.
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
 * The deploy ends for good while its candidate may still run — its last look found it not ready
 * (the convergence deadline passed: `running`), or a later attempt is refused before any compute
 * call (access revoked, a revision the target no longer takes: `unknown`, asked of the target
 * first, since a stop on some targets stops everything of the Agent). The candidate stops, keeping
 * what it left for the operator to read — nothing would ever activate it, and Recreate stopped
 * the active revision for it — and the active revision comes back. Run under the claim, before
 * the item ends, so no later work of the Agent can meet a late stop. A candidate that is already
 * the pointer's (a redeploy of the active revision) keeps running. Best effort: a target that does
 * not answer is logged, and the deploy still ends with its own reason.
 */
export async function abandonCandidate(deps: WorkerDeps, candidate: AgentRevision, guard: LeaseGuard, candidateRuns: 'running' | 'unknown'): Promise<void> {
  if (!(await givenUpHere(deps, candidate))) return;
  const { namespaceId, agentId } = candidate;
  const ref = { namespaceId, agentId };
  const seen = candidateRuns === 'unknown' ? await deps.compute.describeRuntime?.(ref, candidate.id).catch(() => null) : null;
  if (seen?.running !== false) {
    const stopped = await bestEffort(deps, guard, 'worker.candidate_not_stopped', { agentId, revisionId: candidate.id }, (signal) =>
      deps.compute.stopRevision(ref, candidate.id, { signal }),
    );
    if (!stopped) return;
    deps.log?.('worker.candidate_abandoned', { agentId, revisionId: candidate.id });
  }
  await bringBackActive(deps, candidate, guard);
}

/**
 * A revision overtaken by a newer one never becomes active: whatever of it a target still runs —
 * a candidate an earlier attempt left starting, or one prepared beside the serving revision and
 * waiting for its go — is retired (that revision only; nothing else of the Agent is touched), and
 * the active revision comes back if Recreate stopped it (the newer revision may still end before
 * it starts anything), before the item is cancelled. Best effort: a target that does not answer
 * leaves it to the next revision's Recreate, and the deploy still ends `REVISION_SUPERSEDED`.
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
 * The Agent was stopped while this revision was deployed: whatever of it a target runs stops now
 * (the stop's own work stops the active revision; before the first activation it has none to
 * stop). Best effort, like the supersede.
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

/**
 * One compute effect of these decisions, under the claim: true once done. A target that does not
 * answer is logged as `event` (never failing the work it serves); a lost claim still ends the attempt.
 */
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
