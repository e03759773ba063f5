import type { AgentRevision } from '@occ/contracts';
import type { LeaseGuard } from './lease-guard.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * Past the commit point (the Agent's pointer names `revision`): activate it on compute, then retire
 * the predecessors that may still run — handed to compute and not retired since, including one
 * replaced by an earlier attempt of the same item. Not the whole history: each is retired once.
 * Throws on the first effect that fails; every step is idempotent, so whoever finishes it next
 * (a retry, a closing pass) runs it again from the start.
 */
export async function finishActivation(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = revision;
  await guard.run((signal) => deps.compute.activateRevision(revision, { signal }));
  const predecessors = await deps.state.read((uow) => uow.revisions.retirable(agentId, revision.id));
  for (const p of predecessors) {
    await guard.run((signal) => deps.compute.retireRevision({ namespaceId, agentId }, p.id, { signal }));
    await deps.state.autocommit((uow) => uow.revisions.markRetired(agentId, p.id));
  }
}
