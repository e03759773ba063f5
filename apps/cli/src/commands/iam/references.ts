import type { IdKind } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { looksLikeId, namespaceId } from '../../context/resolve.ts';
import { CliError, EXIT } from '../../exit-codes.ts';

interface Named {
  id: string;
  name: string;
}

/**
 * The one item with this name. Principal and key names need not be unique, so two matches are a
 * usage error naming the ids to choose from rather than a guess.
 */
function pickOne<T extends Named>(items: readonly T[], ref: string, noun: string): T {
  const found = items.filter((item) => item.name === ref);
  if (found.length === 0) throw new CliError(`No ${noun} named ${JSON.stringify(ref)}`, EXIT.NOT_FOUND, 'NOT_FOUND');
  if (found.length > 1) throw new CliError(`${found.length} ${noun}s are named ${JSON.stringify(ref)}; give the id (${found.map((item) => item.id).join(', ')})`, EXIT.USAGE);
  return found[0]!;
}

async function byNameOrId<T extends Named>(kind: IdKind, ref: string, noun: string, list: () => Promise<T[]>): Promise<string> {
  return looksLikeId(kind, ref) ? ref : pickOne(await list(), ref, noun).id;
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
