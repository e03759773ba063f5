import type { AgentRevision } from '@occ/contracts';
import type { RestoreCause } from '../../../core/ports/compute-driver.ts';

/** The log line a target writes once it restored `revision`: `compute.<target>.recovered` or `.active_restored` (naming the failed candidate). */
export function restoreEvent(target: string, revision: AgentRevision, cause: RestoreCause): [string, Record<string, unknown>] {
  const fields = { agentId: revision.agentId, revisionId: revision.id };
  return cause.kind === 'recovery' ? [`compute.${target}.recovered`, fields] : [`compute.${target}.active_restored`, { ...fields, failedRevisionId: cause.revisionId }];
}
