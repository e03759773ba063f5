import type { Claim } from '../core/ports/work-queue.ts';
import type { LeaseGuard } from './lease-guard.ts';
import type { WorkerDeps } from './worker-deps.ts';

/** Stops the active runtime first (idempotent), then clears the pointer under the claim. */
export async function stopAgentWork(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = claim.item;
  const agent = await deps.state.read((uow) => uow.agents.get(namespaceId, agentId));
  if (!agent) return deps.queue.complete(claim, 'AGENT_GONE', null);
  if (agent.desiredState !== 'stopped') return deps.queue.cancel(claim, 'STOP_SUPERSEDED');
  const active = agent.activeRevisionId;
  if (active) {
    await guard.run((signal) => deps.compute.stopRevision({ namespaceId, agentId }, active, { signal }));
    const cleared = await deps.queue.withLiveClaim(claim, (uow) => uow.agents.compareAndSetActiveRevision(namespaceId, agentId, active, null));
    if (!cleared) {
      await deps.queue.retry(claim, 'ACTIVE_REVISION_CHANGED', 'The active revision changed while stopping.');
      return;
    }
  }
  await deps.queue.complete(claim, 'AGENT_STOPPED', { stoppedRevisionId: active });
}
