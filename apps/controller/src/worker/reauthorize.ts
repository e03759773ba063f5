import type { AgentRevision } from '@occ/contracts';
import { can, type Caller } from '../core/iam/access.ts';
import type { UnitOfWork } from '../core/ports/state.ts';
import { boundSecrets } from '../core/use-cases/deploy.ts';

export interface Denial {
  code: 'ACTOR_REVOKED' | 'AUTHORIZATION_DENIED';
  message: string;
}

/**
 * Before any compute effect: does the actor who deployed still hold `deploy` on the Agent,
 * `read` on the Configuration and `operate` on every bound Secret — and does the Agent's own
 * principal still hold `operate` on them? Checked against the revision's snapshot.
 */
export async function reauthorize(uow: UnitOfWork, revision: AgentRevision): Promise<Denial | null> {
  const { namespaceId } = revision;
  const actor = await uow.iam.getPrincipal(revision.actorId);
  if (!actor) return { code: 'ACTOR_REVOKED', message: 'The principal that deployed this revision no longer exists.' };
  const asCaller = async (principalId: string): Promise<Caller> => ({ principalId, requestId: 'worker', policy: await uow.iam.loadPolicy(principalId) });
  const actorCaller = await asCaller(actor.id);
  const agentCaller = await asCaller(revision.servicePrincipalId);
  const secretIds = boundSecrets(revision, revision.configuration).map((s) => s.secretId);
  const checks: [Caller, Parameters<typeof can>[1], Parameters<typeof can>[2], string][] = [
    [actorCaller, 'deploy', { kind: 'agent', id: revision.agentId, namespaceId }, 'The deploying principal no longer holds agent:deploy.'],
    [actorCaller, 'read', { kind: 'configuration', id: revision.configuration.id, namespaceId }, 'The deploying principal no longer holds configuration:read.'],
    ...secretIds.flatMap(
      (id) =>
        [
          [actorCaller, 'operate', { kind: 'secret', id, namespaceId }, 'The deploying principal no longer holds secret:operate on a bound Secret.'],
          [agentCaller, 'operate', { kind: 'secret', id, namespaceId }, "The Agent's principal no longer holds secret:operate on a bound Secret."],
        ] as [Caller, 'operate', { kind: 'secret'; id: string; namespaceId: string }, string][],
    ),
  ];
  const failed = checks.find(([caller, action, resource]) => !can(caller, action, resource));
  return failed ? { code: 'AUTHORIZATION_DENIED', message: failed[3] } : null;
}
