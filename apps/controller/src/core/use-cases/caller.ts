import type { CallerView } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';

/**
 * Who the caller is (`GET /whoami`): its own principal only. Reading yourself needs no grant, so
 * a key with no binding at all can still find out whose key it is.
 */
export async function describeCaller(deps: ControllerDeps, caller: Caller, credential: CallerView['credential']): Promise<CallerView> {
  const principal = await deps.state.read((uow) => uow.iam.getPrincipal(caller.principalId));
  // Authentication just found this principal: gone now means it was deleted in between.
  if (!principal) throw new OccError('UNAUTHENTICATED', 'A valid API key is required (Authorization: Bearer occ_…).');
  return { principal, credential };
}
