import { describe, expect, it } from 'vitest';
import { ACTIONS, RESOURCE_KINDS, routeTable, type Action, type Permission, type ResourceKind, type RouteContract, type RoutePermission } from '@occ/contracts';
import { OccError } from '../../src/core/errors.ts';
import type { Caller } from '../../src/core/iam/access.ts';
import type { PrincipalAccess, ResolvedBinding, ResolvedRestriction } from '../../src/core/iam/principal-access.ts';
import { authorizeRoute } from '../../src/core/iam/route-authorization.ts';

// Every protected route × every kind of scope, decided by the pure route authorization (the one
// decision function underneath). The HTTP matrix (test/http/authorization-matrix.test.ts) proves
// the same wiring on a sample of routes through a real controller.

const NS_A = 'ns_a';
const NS_B = 'ns_b';
const ALL: Permission[] = RESOURCE_KINDS.flatMap((resourceKind) => ACTIONS.map((action) => ({ action, resourceKind })));
const protectedRoutes = routeTable.filter((r): r is RouteContract & { permission: RoutePermission } => r.auth === 'api_key' && r.permission !== undefined);

type Outcome = 'allowed' | 'NOT_FOUND' | 'FORBIDDEN';

/** Path parameters aimed at Namespace A; the route's own resource gets `resourceId`. */
function paramsFor(route: RouteContract & { permission: RoutePermission }, resourceId: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [, name] of route.path.matchAll(/:([A-Za-z]+)/g)) params[name!] = `${name}_1`;
  params.ns = NS_A;
  const target = route.permission.target;
  if (target.scope === 'child') params[target.idParam] = resourceId;
  if (target.scope === 'namespace') params.ns = resourceId;
  return params;
}

let ids = 0;
function binding(permissions: Permission[], scope: { namespaceId?: string; resource?: { kind: ResourceKind; id: string } }): ResolvedBinding {
  ids += 1;
  return {
    id: `bind_${ids}`,
    roleId: `role_${ids}`,
    namespaceId: scope.resource ? (scope.namespaceId ?? NS_A) : (scope.namespaceId ?? null),
    resource: scope.resource ?? null,
    permissions,
  };
}
function restriction(action: Action, resourceKind: ResourceKind): ResolvedRestriction {
  ids += 1;
  return { id: `restr_${ids}`, action, resourceKind, namespaceId: null, resourceId: null };
}
function outcome(access: Omit<PrincipalAccess, 'principalId'>, route: RouteContract & { permission: RoutePermission }, resourceId: string): Outcome {
  const caller: Caller = { principalId: 'prn_x', requestId: 'req_x', policy: { principalId: 'prn_x', ...access } };
  try {
    authorizeRoute(caller, route.permission, paramsFor(route, resourceId));
    return 'allowed';
  } catch (error) {
    if (error instanceof OccError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return error.code;
    throw error;
  }
}

describe('authorization matrix (pure decisions): every protected route × every scope', () => {
  it('covers every protected route, each with a declared permission', () => {
    // Every api_key route but the deliberate anyCaller ones (/whoami, /version: no resource to decide on).
    expect(protectedRoutes.length).toBe(routeTable.filter((r) => r.auth === 'api_key' && !r.anyCaller).length);
    expect(protectedRoutes.length).toBeGreaterThan(30);
  });

  for (const route of protectedRoutes) {
    const { permission } = route;
    const { scope } = permission.target;
    const collection = scope === 'installation' || scope === 'namespace_collection';
    const own = scope === 'namespace' ? NS_A : `${permission.resourceKind}_target`;
    describe(`${route.method} ${route.path}`, () => {
      it('[V-2] no binding: refused (403 at Installation level, 404 inside a Namespace), lists only when the collection is the Installation', () => {
        const expected: Outcome = permission.mode === 'filter' && collection ? 'allowed' : collection ? 'FORBIDDEN' : 'NOT_FOUND';
        expect(outcome({ bindings: [], restrictions: [] }, route, own)).toBe(expected);
      });

      it('a full grant on another Namespace is out of scope', () => {
        const expected: Outcome = collection ? (permission.mode === 'filter' ? 'allowed' : 'FORBIDDEN') : 'NOT_FOUND';
        expect(outcome({ bindings: [binding(ALL, { namespaceId: NS_B })], restrictions: [] }, route, own)).toBe(expected);
      });

      it('an Installation-wide grant of exactly the declared permission allows it', () => {
        const needed = permission.actions.map((action) => ({ action, resourceKind: permission.resourceKind }));
        expect(outcome({ bindings: [binding(needed, {})], restrictions: [] }, route, own)).toBe('allowed');
        if (permission.mode === 'exact') {
          // Every other permission of the matrix, without the declared one, is not enough.
          const others = ALL.filter((p) => !(p.resourceKind === permission.resourceKind && permission.actions.includes(p.action)));
          expect(outcome({ bindings: [binding(others, {})], restrictions: [] }, route, own)).not.toBe('allowed');
        }
      });

      if (scope === 'child' || scope === 'namespace') {
        it('an exact-resource grant covers that resource only', () => {
          const kind = scope === 'namespace' ? 'namespace' : permission.resourceKind;
          const grant = binding(
            ALL.filter((p) => p.resourceKind === kind && p.action !== 'create'),
            { namespaceId: NS_A, resource: { kind, id: own } },
          );
          expect(outcome({ bindings: [grant], restrictions: [] }, route, own)).toBe('allowed');
          const sibling = scope === 'namespace' ? NS_B : `${permission.resourceKind}_sibling`;
          expect(outcome({ bindings: [grant], restrictions: [] }, route, sibling)).toBe('NOT_FOUND');
        });
      }

      if (permission.mode === 'exact') {
        it('a restriction on its action denies it despite a full grant', () => {
          const restrictions = permission.actions.map((action) => restriction(action, permission.resourceKind));
          const readHidden = permission.actions.includes('read') && scope === 'child';
          expect(outcome({ bindings: [binding(ALL, {})], restrictions }, route, own)).toBe(readHidden ? 'NOT_FOUND' : 'FORBIDDEN');
          // One of several accepted actions left unrestricted still allows it.
          if (permission.actions.length > 1) {
            expect(outcome({ bindings: [binding(ALL, {})], restrictions: restrictions.slice(1) }, route, own)).toBe('allowed');
          }
        });
      }
    });
  }
});
