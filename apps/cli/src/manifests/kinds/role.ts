import type { Permission } from '@occ/contracts';
import { documentFields, documentName, nameOf } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';

/** A role's permissions are a set: compared and shown in one order, whatever order the file has. */
function sortedPermissions(permissions: unknown): unknown {
  if (!Array.isArray(permissions)) return permissions;
  const key = (p: Permission) => `${p.resourceKind}:${p.action}`;
  return [...(permissions as Permission[])].sort((a, b) => key(a).localeCompare(key(b)));
}

/**
 * `kind: Role` — `name` and `permissions` ([{action, resourceKind}]). The API cannot change a
 * role in place, so a role whose permissions differ is refused, with what to do instead.
 */
export const roleKind: ManifestKind = {
  kind: 'Role',
  noun: 'role',
  refOf: (body) => `role/${nameOf(body)}`,
  async plan({ client }, document) {
    const body = documentFields(document, ['name', 'permissions']);
    const name = documentName(document);
    const existing = (await client.listAll('listRoles', {})).find((role) => role.name === name);
    return {
      ref: `role/${name}`,
      id: existing?.id ?? null,
      live: existing ? { name, permissions: sortedPermissions(existing.permissions) } : null,
      desired: { ...body, permissions: sortedPermissions(body.permissions) },
      create: async () => (await client.call('createRole', { body: body as never })).data.id,
      refusal: 'the API cannot change a role in place: apply it under a new name and bind that, or delete this one (once no binding uses it) and apply again',
    };
  },
};
