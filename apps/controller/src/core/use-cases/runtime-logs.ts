import { RUNTIME_LOG_TAIL_DEFAULT, RUNTIME_LOG_TAIL_MAX, type RuntimeLogsResponse } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { notFound, OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';

/**
 * The last lines of a revision's runtime log, as the ComputeDriver keeps them (bounded there).
 * An unknown revision is 404 before the driver is asked; a driver that keeps no logs is 501.
 */
export async function readRuntimeLogs(
  deps: ControllerDeps,
  _caller: Caller,
  namespaceId: string,
  agentId: string,
  revisionId: string,
  tail: number | undefined,
): Promise<RuntimeLogsResponse> {
  const revision = await deps.state.read((uow) => uow.revisions.get(namespaceId, agentId, revisionId));
  if (!revision) throw notFound('Revision');
  const compute = deps.compute;
  if (!compute?.readLogs) throw new OccError('NOT_IMPLEMENTED', 'The ComputeDriver keeps no runtime logs.');
  const count = Math.min(RUNTIME_LOG_TAIL_MAX, Math.max(1, tail ?? RUNTIME_LOG_TAIL_DEFAULT));
  const { lines, truncated } = await compute.readLogs({ namespaceId, agentId }, revision.id, { tail: count });
  return { lines: lines.slice(-count), truncated: truncated || lines.length > count };
}
