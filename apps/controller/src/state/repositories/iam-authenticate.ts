import type { Action, Permission, ResourceKind } from '@occ/contracts';
import type { IamRepository } from '../../core/ports/iam-repository.ts';
import type { PrincipalAccess } from '../../core/iam/principal-access.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { toPrincipal, type PrincipalRow } from './iam-principals.ts';

export interface PolicyJson {
  bindings: { id: string; roleId: string; namespaceId: string | null; resourceKind: ResourceKind | null; resourceId: string | null; permissions: Permission[] }[];
  restrictions: { id: string; action: Action; resourceKind: ResourceKind; namespaceId: string | null; resourceId: string | null }[];
}

/** The policy of principal `p` as two jsonb columns: its bindings (with permissions) and the restrictions on it or on everyone. */
export const POLICY_COLUMNS = `
  COALESCE((SELECT jsonb_agg(jsonb_build_object('id', b.id, 'roleId', b.role_id, 'namespaceId', b.namespace_id,
      'resourceKind', b.resource_kind, 'resourceId', b.resource_id, 'permissions', r.permissions) ORDER BY b.id COLLATE "C")
    FROM access_bindings b JOIN roles r ON r.id = b.role_id WHERE b.principal_id = p.id), '[]'::jsonb) AS bindings,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('id', x.id, 'action', x.action, 'resourceKind', x.resource_kind,
      'namespaceId', x.namespace_id, 'resourceId', x.resource_id) ORDER BY x.id COLLATE "C")
    FROM restrictions x WHERE x.principal_id = p.id OR x.principal_id IS NULL), '[]'::jsonb) AS restrictions`;

const AUTHENTICATE = `
  WITH p AS (
    SELECT p.id, p.kind, p.name, p.namespace_id, p.agent_id, p.created_at, k.expires_at AS key_expires_at
    FROM api_keys k JOIN principals p ON p.id = k.principal_id
    WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND k.expires_at > now()
  )
  SELECT p.*, ${POLICY_COLUMNS} FROM p`;

const LOAD_POLICY = `SELECT ${POLICY_COLUMNS} FROM (SELECT $1::text AS id) p`;

export const toPolicy = (principalId: string, j: PolicyJson): PrincipalAccess => ({
  principalId,
  bindings: j.bindings.map((b) => ({
    id: b.id,
    roleId: b.roleId,
    namespaceId: b.namespaceId,
    resource: b.resourceKind !== null && b.resourceId !== null ? { kind: b.resourceKind, id: b.resourceId } : null,
    permissions: b.permissions,
  })),
  restrictions: j.restrictions.map((x) => ({ id: x.id, action: x.action, resourceKind: x.resourceKind, namespaceId: x.namespaceId, resourceId: x.resourceId })),
});

export function iamAuthenticate(q: Queryable): Pick<IamRepository, 'authenticate' | 'loadPolicy'> {
  const run = runner(q);
  return {
    async authenticate(keyHash) {
      const { rows } = await run<PrincipalRow & PolicyJson & { key_expires_at: Date }>(AUTHENTICATE, [Buffer.from(keyHash)]);
      const row = rows[0];
      return row ? { principal: toPrincipal(row), policy: toPolicy(row.id, row), keyExpiresAt: new Date(row.key_expires_at) } : null;
    },
    async loadPolicy(principalId) {
      const { rows } = await run<PolicyJson>(LOAD_POLICY, [principalId]);
      return toPolicy(principalId, rows[0] ?? { bindings: [], restrictions: [] });
    },
  };
}
