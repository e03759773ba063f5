import type { ResourceRef } from '@occ/contracts';
import type { AccessRequest, Decision, ResolvedBinding, ResolvedRestriction, PrincipalAccess } from './principal-access.ts';

/** The Namespace a resource lives in (a Namespace lives in itself). */
function namespaceOf(resource: ResourceRef): string | undefined {
  return resource.kind === 'namespace' ? (resource.id ?? resource.namespaceId) : resource.namespaceId;
}

/** Does the binding's scope cover the resource? (`create` never matches an exact-resource binding.) */
function scopeCovers(binding: ResolvedBinding, request: AccessRequest): boolean {
  const { resource } = request;
  if (binding.resource) {
    return request.action !== 'create' && binding.resource.kind === resource.kind && binding.resource.id === resource.id;
  }
  if (binding.namespaceId === null) return true;
  return binding.namespaceId === namespaceOf(resource);
}

function restrictionMatches(r: ResolvedRestriction, request: AccessRequest): boolean {
  const { resource } = request;
  return (
    r.action === request.action &&
    r.resourceKind === resource.kind &&
    (r.namespaceId === null || r.namespaceId === namespaceOf(resource)) &&
    (r.resourceId === null || r.resourceId === resource.id)
  );
}

/**
 * THE access decision: a binding whose scope covers the resource and whose role holds the
 * exact (action, kind) pair grants; any matching restriction then denies. Pure, with evidence.
 */
export function decide(policy: PrincipalAccess, request: AccessRequest): Decision {
  const granting = policy.bindings.filter((b) => scopeCovers(b, request) && b.permissions.some((p) => p.action === request.action && p.resourceKind === request.resource.kind));
  const restricting = granting.length > 0 ? policy.restrictions.filter((r) => restrictionMatches(r, request)) : [];
  const evidence = {
    principalId: policy.principalId,
    bindingIds: granting.map((b) => b.id),
    roleIds: [...new Set(granting.map((b) => b.roleId))],
    restrictionIds: restricting.map((r) => r.id),
  };
  if (granting.length === 0) return { allowed: false, reason: 'no_matching_binding', evidence };
  if (restricting.length > 0) return { allowed: false, reason: 'restricted', evidence };
  return { allowed: true, reason: 'granted', evidence };
}

/**
 * Is the Namespace within the principal's scope at all? Outside it, every answer is 404,
 * exactly as if the Namespace did not exist.
 */
export function namespaceInScope(policy: PrincipalAccess, namespaceId: string): boolean {
  return policy.bindings.some((b) => b.namespaceId === null || b.namespaceId === namespaceId || (b.resource?.kind === 'namespace' && b.resource.id === namespaceId));
}
