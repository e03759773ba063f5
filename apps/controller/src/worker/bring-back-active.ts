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
