import { auditEvent, type AuditEntry } from '../core/audit/record.ts';
import type { RemovedResource } from '../core/ports/compute-driver.ts';
import type { Claim } from '../core/ports/work-queue.ts';
import type { LeaseGuard } from './lease-guard.ts';
import type { WorkerDeps } from './worker-deps.ts';

/** The audit action of a deleted Agent's compute removal (success, or the last failed attempt). */
const COMPUTE_REMOVED_ACTION = 'agents.compute_removed';

/**
 * After an Agent was deleted (`deleteAgent` queued this in the same transaction): the worker's
 * ComputeDriver removes what it still holds for the Agent — every revision's container or
 * Kubernetes objects, the Agent's network, its files — under the claim's lease, and the removal
 * is audited with the deleting principal as actor and what was removed. Idempotent, so a retry
 * after a lost claim or a failed attempt simply finds less. When the attempts are spent the
 * failure is audited too: what is left must then be removed by hand (docs/deployments.md).
 */
export async function removeAgentWork(deps: WorkerDeps, claim: Claim, guard: LeaseGuard): Promise<void> {
  const { namespaceId, agentId, actorId, id: workId } = claim.item;
  const computeDriverId = deps.compute.id;
  const entry = (details: Record<string, unknown>, outcome: AuditEntry['outcome'] = 'success'): AuditEntry => ({
    action: COMPUTE_REMOVED_ACTION,
    namespaceId,
    resource: { kind: 'agent', id: agentId },
    outcome,
    details: { workId, computeDriverId, ...details },
  });
  // The deleting principal did this, through the worker (it may be gone since: the id stays).
  const audit = (e: AuditEntry) => ({ ...auditEvent(null, e), actorId });
  let removed: RemovedResource[];
  try {
    const remove = deps.compute.removeAgent?.bind(deps.compute);
    removed = remove ? await guard.run((signal) => remove({ namespaceId, agentId }, { signal })) : [];
  } catch (error) {
    if (guard.signal.aborted) throw error;
    deps.log?.('work:remove-agent-failed', { key: claim.item.key, error: (error as Error).name });
    const left = await deps.queue.retry(claim, 'WORKER_ERROR', 'Removing the deleted Agent from its compute target failed; it will be retried.');
    if (left === 'failed') await deps.state.transact((uow) => uow.audit.append(audit(entry({ attempts: claim.item.attempts }, 'failure'))));
    return;
  }
  await deps.queue.withLiveClaim(claim, (uow) => uow.audit.append(audit(entry({ removed }))));
  await deps.queue.complete(claim, 'AGENT_REMOVED', { computeDriverId, removed });
}
