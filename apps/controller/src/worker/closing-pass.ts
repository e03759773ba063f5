import { LAST_LEASE_EXPIRED, LEASE_EXPIRED, type Claim } from '../core/ports/work-queue.ts';
import { abandonCandidate } from './give-up-candidate.ts';
import type { LeaseGuard } from './lease-guard.ts';
import { removeAgentWork } from './remove-agent.ts';
import { stopAgentWork } from './stop-agent.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * The closing pass of an item whose last attempt lost its lease (its worker died or stalled, so
 * nobody saw that attempt end). A deploy ends: the candidate that attempt may have started is
 * stopped and the active revision brought back (give-up-candidate.ts) under this claim, so the
 * Agent's next work cannot meet it, then the item fails with LEASE_EXPIRED. A stop or a removal
 * runs once more instead — both are idempotent and are what the operator asked for, and failing
 * them would leave a stopped or deleted Agent's runtime running; it ends either way (no attempt is left).
 */
export async function closeLostAttempt(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { kind, namespaceId, agentId, revisionId } = claim.item;
  if (kind === 'stop_agent') return stopAgentWork(deps, claim, guard);
  if (kind === 'remove_agent') return removeAgentWork(deps, claim, guard);
  if (revisionId) {
    const revision = await deps.state.read((uow) => uow.revisions.get(namespaceId, agentId, revisionId));
    if (revision) await abandonCandidate(deps, revision, guard);
  }
  await deps.queue.retry(claim, LEASE_EXPIRED, LAST_LEASE_EXPIRED);
}
