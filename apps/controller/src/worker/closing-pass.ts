import type { AgentRevision } from '@occ/contracts';
import { LAST_LEASE_EXPIRED, LEASE_EXPIRED, type Claim } from '../core/ports/work-queue.ts';
import { finishActivation } from './finish-activation.ts';
import { ensureActiveWork } from './ensure-active.ts';
import { abandonCandidate } from './give-up-candidate.ts';
import type { LeaseGuard } from './lease-guard.ts';
import { removeAgentWork } from './remove-agent.ts';
import { stopAgentWork } from './stop-agent.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * The closing pass of an item whose last attempt lost its lease (its worker died or stalled, so
 * nobody saw that attempt end). A deploy ends: the candidate that attempt may have started is
 * stopped and the active revision brought back (give-up-candidate.ts) under this claim, so the
 * Agent's next work cannot meet it — or, when that attempt had already moved the pointer, the
 * activation is finished (unless the Agent was stopped since: its stop wins) — then the item fails
 * with LEASE_EXPIRED. A stop or a removal runs once more instead: both are idempotent and are what
 * the operator asked for, and failing them would leave a stopped or deleted Agent's runtime
 * running; it ends either way (no attempt is left). So does the active revision's periodic check
 * (ensure-active.ts), idempotent too.
 */
export async function closeLostAttempt(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { kind, namespaceId, agentId, revisionId } = claim.item;
  if (kind === 'stop_agent') return stopAgentWork(deps, claim, guard);
  if (kind === 'remove_agent') return removeAgentWork(deps, claim, guard);
  if (kind === 'ensure_active') return ensureActiveWork(deps, claim, guard);
  const found = revisionId
    ? await deps.state.read(async (uow) => ({ revision: await uow.revisions.get(namespaceId, agentId, revisionId), agent: await uow.agents.get(namespaceId, agentId) }))
    : null;
  const revision = found?.revision;
  if (revision && found.agent?.activeRevisionId === revision.id) {
    if (found.agent.desiredState !== 'stopped') await finishLostActivation(deps, revision, guard);
  } else if (revision) await abandonCandidate(deps, revision, guard);
  await deps.queue.retry(claim, LEASE_EXPIRED, LAST_LEASE_EXPIRED);
}

/**
 * The lost attempt had moved the pointer (the candidate was ready): it is activated and its
 * predecessors retired, as that attempt would have, best effort — so the revision the pointer names
 * serves (on kubernetes, the Service selects it). The deploy still fails: the attempt's result (its
 * plugin warnings) was lost with its worker, and a redeploy reports them.
 */
async function finishLostActivation(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  try {
    await finishActivation(deps, revision, guard);
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('worker.activation_not_finished', { agentId: revision.agentId, revisionId: revision.id, error: String(error) });
  }
}
