import type { Claim } from '../core/ports/work-queue.ts';
import type { LeaseGuard } from './lease-guard.ts';
import { runtimeManifest } from './runtime-manifest.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * The level-triggered half of the worker (docs/deployments.md, "The active revision keeps
 * running"): the database says what should run — a running Agent's active revision — and the
 * compute target is asked to run it again when nothing of the Agent runs there (`restoreRevision`,
 * the step that also recovers after a restart and brings the active revision back after a failed
 * candidate). A target that runs it, or anything else of the Agent, is left as it is. Read again at
 * the claim: a stop, a deploy or a deletion since the item was armed wins, and so does any other
 * work of the Agent still queued (the check is due at a random time of its period, so it may fall
 * between a deploy's convergence checks).
 */
export async function ensureActiveWork(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId } = claim.item;
  const found = await deps.state.read(async (uow) => {
    // Work of the Agent under way (a deploy between two convergence checks, a stop waiting its turn) owns what runs.
    if (await uow.work.otherOpenWork(claim.item.lane, claim.item.key)) return null;
    const agent = await uow.agents.get(namespaceId, agentId);
    const active = agent?.desiredState === 'running' ? agent.activeRevisionId : null;
    return active ? uow.revisions.get(namespaceId, agentId, active) : null;
  });
  if (!found || found.computeDriverId !== deps.compute.id) return deps.queue.complete(claim, 'ENSURE_NOT_NEEDED', null);
  await guard.run((signal) => deps.compute.restoreRevision(found, runtimeManifest(found), { kind: 'check' }, { signal }));
  await deps.queue.complete(claim, 'ACTIVE_REVISION_ENSURED', { revisionId: found.id });
}
