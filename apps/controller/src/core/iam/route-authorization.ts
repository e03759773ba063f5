import type { ResourceRef, RoutePermission } from '@occ/contracts';
import { notFound } from '../errors.ts';
import { namespaceInScope } from './decide.ts';
import { requireAccess, type Caller } from './access.ts';

/** The resource a route's permission is about, from its path parameters. */
function routeResource(permission: RoutePermission, params: Record<string, string>): ResourceRef {
  const { target, resourceKind: kind } = permission;
  switch (target.scope) {
    case 'installation':
      return { kind: 'installation' };
    case 'namespace_collection':
      return { kind: 'namespace' };
    case 'namespace':
      return { kind: 'namespace', id: params.ns!, namespaceId: params.ns! };
    case 'child_collection':
      return { kind, namespaceId: params.ns! };
    case 'child':
      return { kind, id: params[target.idParam]!, namespaceId: params.ns! };
  }
}

/**
 * Authorizes a request against its route's declared permission, before any use case runs.
 * Lists (`filter`) only need their Namespace in scope; their items are filtered by `read`.
 */
export function authorizeRoute(caller: Caller, permission: RoutePermission, params: Record<string, string>): void {
  const resource = routeResource(permission, params);
  if (permission.mode === 'filter') {
    if (resource.namespaceId !== undefined && !namespaceInScope(caller.policy, resource.namespaceId)) throw notFound();
    return;
  }
  requireAccess(caller, permission.actions, resource);
}
