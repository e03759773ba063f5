import type { AgentRevision } from '@occ/contracts';
import type { RestoreCause } from '../../../core/ports/compute-driver.ts';

/**
 * The log line a target writes once it restored `revision`: `compute.<target>.recovered` (after a
 * restart, or found not running by the periodic check: `check: true`) or `.active_restored` (naming
 * the failed candidate).
 */
export function restoreEvent(target: string, revision: AgentRevision, cause: RestoreCause): [string, Record<string, unknown>] {
  const fields = { agentId: revision.agentId, revisionId: revision.id };
  if (cause.kind === 'candidate-failed') return [`compute.${target}.active_restored`, { ...fields, failedRevisionId: cause.revisionId }];
  return [`compute.${target}.recovered`, cause.kind === 'check' ? { ...fields, check: true } : fields];
}
