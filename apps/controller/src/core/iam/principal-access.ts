import type { Action, Permission, ResourceKind, ResourceRef } from '@occ/contracts';

/** One access binding of a principal, with its role's permissions resolved. */
export interface ResolvedBinding {
  id: string;
  roleId: string;
  /** null = the whole Installation. */
  namespaceId: string | null;
  /** Set for an exact-resource binding. */
  resource: { kind: ResourceKind; id: string } | null;
  permissions: Permission[];
}

export interface ResolvedRestriction {
  id: string;
  action: Action;
  resourceKind: ResourceKind;
  namespaceId: string | null;
  resourceId: string | null;
}

/** Everything the decision function needs about one principal, loaded per request. */
export interface PrincipalAccess {
  principalId: string;
  bindings: ResolvedBinding[];
  restrictions: ResolvedRestriction[];
}

export interface Decision {
  allowed: boolean;
  reason: 'granted' | 'no_matching_binding' | 'restricted';
  evidence: { principalId: string; bindingIds: string[]; roleIds: string[]; restrictionIds: string[] };
}

export interface AccessRequest {
  action: Action;
  resource: ResourceRef;
}
