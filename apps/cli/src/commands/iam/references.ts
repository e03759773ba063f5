import type { ApiClient } from '@occ/contracts/client';
import { byNameOrId, namespaceId } from '../../context/resolve.ts';

interface Named {
  id: string;
  name: string;
}

export const principalId = (client: ApiClient, ref: string) => byNameOrId('principal', ref, 'principal', () => client.listAll('listPrincipals', {}));

export const roleId = (client: ApiClient, ref: string) => byNameOrId('role', ref, 'role', () => client.listAll('listRoles', {}));

export const apiKeyId = (client: ApiClient, principal: string, ref: string) =>
  byNameOrId('api_key', ref, 'API key', () => client.listAll('listApiKeys', { params: { id: principal } }));

/** id → name of every principal, role and Namespace, so tables show names rather than ids. */
export interface NameBook {
  principal(id: string | null): string | null;
  role(id: string): string;
  namespace(id: string | null): string | null;
}

export async function loadNameBook(client: ApiClient, wanted: { principals?: boolean; roles?: boolean; namespaces?: boolean }): Promise<NameBook> {
  const [principals, roles, namespaces] = await Promise.all([
    wanted.principals ? client.listAll('listPrincipals', {}) : [],
    wanted.roles ? client.listAll('listRoles', {}) : [],
    wanted.namespaces ? client.listAll('listNamespaces', {}) : [],
  ]);
  const names = (items: readonly Named[]) => new Map(items.map((item) => [item.id, item.name]));
  const [p, r, n] = [names(principals), names(roles), names(namespaces)];
  return {
    principal: (id) => (id === null ? null : (p.get(id) ?? id)),
    role: (id) => r.get(id) ?? id,
    namespace: (id) => (id === null ? null : (n.get(id) ?? id)),
  };
}

const byName = {
  principal: ['principalId', principalId],
  role: ['roleId', roleId],
  namespace: ['namespaceId', namespaceId],
} as const;

/**
 * A resource file is the API's body, except that `principal`, `role` or `namespace` may name what
 * `principalId`, `roleId` or `namespaceId` would give by id: each is replaced by its id.
 */
export async function idsForNames(client: ApiClient, document: Record<string, unknown>, keys: ReadonlyArray<keyof typeof byName>): Promise<Record<string, unknown>> {
  for (const key of keys) {
    const ref = document[key];
    if (typeof ref !== 'string') continue;
    const [idKey, resolve] = byName[key];
    delete document[key];
    document[idKey] = await resolve(client, ref);
  }
  return document;
}
