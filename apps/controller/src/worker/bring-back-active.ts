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
  try {
    await guard.run((signal) => deps.compute.restoreRevision(active, runtimeManifest(active), { kind: 'candidate-failed', revisionId: candidate.id }, { signal }));
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('worker.active_not_restored', { agentId, revisionId: active.id, failedRevisionId: candidate.id, error: String(error) });
  }
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
  const { namespaceId, agentId } = candidate;
  const agent = await deps.state.read((uow) => uow.agents.get(namespaceId, agentId));
  if (agent?.activeRevisionId === candidate.id || candidate.computeDriverId !== deps.compute.id) return;
  const ref = { namespaceId, agentId };
  try {
    const seen = candidateRuns === 'unknown' ? await deps.compute.describeRuntime?.(ref, candidate.id).catch(() => null) : null;
    if (seen?.running !== false) {
      await guard.run((signal) => deps.compute.stopRevision(ref, candidate.id, { signal }));
      deps.log?.('worker.candidate_abandoned', { agentId, revisionId: candidate.id });
    }
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('worker.candidate_not_stopped', { agentId, revisionId: candidate.id, error: String(error) });
    return;
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
  const { namespaceId, agentId } = revision;
  const agent = await deps.state.read((uow) => uow.agents.get(namespaceId, agentId));
  if (agent?.activeRevisionId === revision.id || revision.computeDriverId !== deps.compute.id) return;
  try {
    await guard.run((signal) => deps.compute.retireRevision({ namespaceId, agentId }, revision.id, { signal }));
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('worker.superseded_not_retired', { agentId, revisionId: revision.id, error: String(error) });
    return;
  }
  await bringBackActive(deps, revision, guard);
}

/**
 * The Agent was stopped while this revision was deployed: whatever of it a target runs stops now
 * (the stop's own work stops the active revision; before the first activation it has none to
 * stop). Best effort, like the supersede.
 */
export async function stopCandidateOfStoppedAgent(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = revision;
  if (revision.computeDriverId !== deps.compute.id) return;
  try {
    await guard.run((signal) => deps.compute.stopRevision({ namespaceId, agentId }, revision.id, { signal }));
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('worker.stopped_candidate_not_stopped', { agentId, revisionId: revision.id, error: String(error) });
  }
}
