import type { Action, ResourceRef } from '@occ/contracts';
import { forbidden, notFound } from '../errors.ts';
import { decide, namespaceInScope } from './decide.ts';
import type { Decision, PrincipalAccess } from './principal-access.ts';

/** The authenticated caller of one request, with its policy loaded once for the request. */
export interface Caller {
  principalId: string;
  requestId: string;
  policy: PrincipalAccess;
}

export function can(caller: Caller, action: Action, resource: ResourceRef): boolean {
  return decide(caller.policy, { action, resource }).allowed;
}

/**
 * Allows when any of `actions` is granted; otherwise throws. A resource outside the caller's
 * scope answers 404 exactly like a missing one; a visible resource answers a generic 403.
 */
export function requireAccess(caller: Caller, actions: readonly Action[], resource: ResourceRef): Decision {
  const decisions = actions.map((action) => decide(caller.policy, { action, resource }));
  const granted = decisions.find((d) => d.allowed);
  if (granted) return granted;
  throw visible(caller, resource) ? forbidden() : notFound();
}

function visible(caller: Caller, resource: ResourceRef): boolean {
  if (resource.kind === 'installation' || (resource.kind === 'namespace' && !resource.id)) return true;
  if (resource.kind === 'namespace' || !resource.id) {
    const ns = resource.kind === 'namespace' ? resource.id : resource.namespaceId;
    return ns !== undefined && namespaceInScope(caller.policy, ns);
  }
  return can(caller, 'read', resource);
}
