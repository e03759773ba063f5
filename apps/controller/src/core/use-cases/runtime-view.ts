import type { RuntimeView } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { notFound, OccError } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';

/**
 * The live runtime view: the ComputeDriver is asked now, nothing is stored. An unknown revision
 * is 404 before the driver is asked; a driver that cannot describe runtimes is 501. The names of
 * delivered Secret variables are the revision's Configuration content, so they follow the same
 * rule as its snapshot (revision-view.ts): `configuration:read` on that Configuration.
 */
export async function getRuntimeView(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string, revisionId: string): Promise<RuntimeView> {
  const revision = await deps.state.read((uow) => uow.revisions.get(namespaceId, agentId, revisionId));
  if (!revision) throw notFound('Revision');
  const compute = deps.compute;
  if (!compute?.describeRuntime) throw new OccError('NOT_IMPLEMENTED', 'The ComputeDriver cannot describe runtimes.');
  const described = await compute.describeRuntime({ namespaceId, agentId }, revision.id);
  const mayReadConfiguration = can(caller, 'read', { kind: 'configuration', id: revision.configuration.id, namespaceId });
  return {
    revisionId: revision.id,
    observedAt: deps.now().toISOString(),
    running: described.running,
    phase: described.phase,
    startupId: described.startupId,
    restarts: described.restarts,
    ready: described.ready,
    deliveredSecrets: mayReadConfiguration ? [...described.deliveredSecrets].sort() : null,
    lastFailureCode: described.lastFailureCode,
    loaded: described.loaded,
  };
}
