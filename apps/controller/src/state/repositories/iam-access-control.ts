import type { AccessBinding, Action, Permission, ResourceKind, Restriction, Role } from '@occ/contracts';
import type { IamRepository, SignInRuleMethods } from '../../core/ports/iam-repository.ts';
import { conflict } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { BY_ID, afterId, iso, jsonb } from './rows.ts';

interface RoleRow {
  id: string;
  name: string;
  permissions: Permission[];
  created_at: Date;
}

interface BindingRow {
  id: string;
  principal_id: string;
  role_id: string;
  namespace_id: string | null;
  resource_kind: ResourceKind | null;
  resource_id: string | null;
  sign_in_rule_id: string | null;
  created_at: Date;
}

interface RestrictionRow {
  id: string;
  principal_id: string | null;
  action: Action;
  resource_kind: ResourceKind;
  namespace_id: string | null;
  resource_id: string | null;
  created_at: Date;
}

const ROLE = 'id, name, permissions, created_at';
const BINDING = 'id, principal_id, role_id, namespace_id, resource_kind, resource_id, sign_in_rule_id, created_at';
const RESTRICTION = 'id, principal_id, action, resource_kind, namespace_id, resource_id, created_at';

const toRole = (r: RoleRow): Role => ({ id: r.id, name: r.name, permissions: r.permissions, createdAt: iso(r.created_at) });

const toBinding = (r: BindingRow): AccessBinding => ({
  id: r.id,
  principalId: r.principal_id,
  roleId: r.role_id,
  namespaceId: r.namespace_id,
  resource: r.resource_kind !== null && r.resource_id !== null ? { kind: r.resource_kind, id: r.resource_id } : null,
  signInRuleId: r.sign_in_rule_id,
  createdAt: iso(r.created_at),
});

const toRestriction = (r: RestrictionRow): Restriction => ({
  id: r.id,
  principalId: r.principal_id,
  action: r.action,
  resourceKind: r.resource_kind,
  namespaceId: r.namespace_id,
  resourceId: r.resource_id,
  createdAt: iso(r.created_at),
});

const roleBound = () => conflict('The role is still bound; delete its access bindings and sign-in rules first.');

export type AccessControlMethods = Omit<
  IamRepository,
  | 'authenticate'
  | 'loadPolicy'
  | 'insertPrincipal'
  | 'getPrincipal'
  | 'scanPrincipals'
  | 'deletePrincipal'
  | 'insertApiKey'
  | 'scanApiKeys'
  | 'revokeApiKey'
  | keyof SignInRuleMethods
>;

export function iamAccessControl(q: Queryable): AccessControlMethods {
  const run = runner(q);
  const byId = async <R, T>(table: string, columns: string, map: (r: R) => T, id: string): Promise<T | null> => {
    const { rows } = await run<R>(`SELECT ${columns} FROM ${table} WHERE id = $1`, [id]);
    return rows[0] ? map(rows[0]) : null;
  };
  const scan = async <R, T>(table: string, columns: string, map: (r: R) => T, page: { after?: string; limit: number }): Promise<T[]> => {
    const { rows } = await run<R>(`SELECT ${columns} FROM ${table} WHERE ${afterId(1)} ${BY_ID} LIMIT $2`, [page.after ?? null, page.limit]);
    return rows.map(map);
  };
  const remove = async (table: string, id: string, referenced?: () => ReturnType<typeof conflict>): Promise<boolean> => {
    const { rowCount } = await run(`DELETE FROM ${table} WHERE id = $1`, [id], referenced ? { referenced } : {});
    return rowCount > 0;
  };
  return {
    async insertRole(r) {
      const { rows } = await run<RoleRow>(`INSERT INTO roles (id, name, permissions) VALUES ($1, $2, $3::jsonb) RETURNING ${ROLE}`, [r.id, r.name, jsonb(r.permissions)], {
        name: 'Role',
      });
      return toRole(rows[0]!);
    },
    getRole: (id) => byId('roles', ROLE, toRole, id),
    async findRoleByName(name) {
      const { rows } = await run<RoleRow>(`SELECT ${ROLE} FROM roles WHERE name = $1`, [name]);
      return rows[0] ? toRole(rows[0]) : null;
    },
    scanRoles: (page) => scan('roles', ROLE, toRole, page),
    async roleInUse(id) {
      const { rows } = await run<{ used: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM access_bindings WHERE role_id = $1) OR EXISTS (SELECT 1 FROM sign_in_rules WHERE role_id = $1) AS used',
        [id],
      );
      return rows[0]?.used === true;
    },
    deleteRole: (id) => remove('roles', id, roleBound),

    async insertBinding(b) {
      const { rows } = await run<BindingRow>(
        `INSERT INTO access_bindings (id, principal_id, role_id, namespace_id, resource_kind, resource_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${BINDING}`,
        [b.id, b.principalId, b.roleId, b.namespaceId ?? null, b.resource?.kind ?? null, b.resource?.id ?? null],
        { namespace: true },
      );
      return toBinding(rows[0]!);
    },
    getBinding: (id) => byId('access_bindings', BINDING, toBinding, id),
    scanBindings: (page) => scan('access_bindings', BINDING, toBinding, page),
    deleteBinding: (id) => remove('access_bindings', id),
    async deleteGrantsOnResource(kind, id) {
      // Restriction ids of the resource go in the same statement; resource ids are globally unique (prefix + UUID).
      const { rows } = await run<{ id: string }>(
        `WITH gone AS (DELETE FROM restrictions WHERE resource_id = $2),
           rules AS (DELETE FROM sign_in_rules WHERE resource_kind = $1 AND resource_id = $2)
         DELETE FROM access_bindings WHERE resource_kind = $1 AND resource_id = $2 RETURNING id`,
        [kind, id],
      );
      return rows.map((r) => r.id).sort();
    },

    async insertRestriction(r) {
      const { rows } = await run<RestrictionRow>(
        `INSERT INTO restrictions (id, principal_id, action, resource_kind, namespace_id, resource_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${RESTRICTION}`,
        [r.id, r.principalId ?? null, r.action, r.resourceKind, r.namespaceId ?? null, r.resourceId ?? null],
        { namespace: true },
      );
      return toRestriction(rows[0]!);
    },
    getRestriction: (id) => byId('restrictions', RESTRICTION, toRestriction, id),
    scanRestrictions: (page) => scan('restrictions', RESTRICTION, toRestriction, page),
    deleteRestriction: (id) => remove('restrictions', id),
  };
}
