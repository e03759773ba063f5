import { ID_PREFIXES } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { CliError, EXIT } from '../exit-codes.ts';

/** Whether a string a person typed is an id of this kind (`agt_…`) rather than a name. */
export function looksLikeId(kind: keyof typeof ID_PREFIXES, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-f-]{36}$`).test(value);
}

interface Named {
  id: string;
  name: string;
}

/**
 * The one item with this name. Where names need not be unique (principals, keys), two matches are
 * a usage error naming the ids to choose from rather than a guess.
 */
function pickOne<T extends Named>(items: readonly T[], ref: string, noun: string, where: string): T {
  const found = items.filter((item) => item.name === ref);
  if (found.length === 0) throw new CliError(`No ${noun} named ${JSON.stringify(ref)}${where}`, EXIT.NOT_FOUND, 'NOT_FOUND');
  if (found.length > 1) throw new CliError(`${found.length} ${noun}s are named ${JSON.stringify(ref)}; give the id (${found.map((item) => item.id).join(', ')})`, EXIT.USAGE);
  return found[0]!;
}

/** An id as typed, or the id of the one item `list` returns with that name. */
export async function byNameOrId<T extends Named>(kind: keyof typeof ID_PREFIXES, ref: string, noun: string, list: () => Promise<T[]>, where = ''): Promise<string> {
  return looksLikeId(kind, ref) ? ref : pickOne(await list(), ref, noun, where).id;
}

/** A Namespace id from a name or an id. */
export async function namespaceId(client: ApiClient, ref: string | undefined): Promise<string> {
  if (!ref) throw new CliError('No Namespace: pass -n NAMESPACE, or set one with `occ context set-namespace NAME`', EXIT.USAGE);
  return byNameOrId('namespace', ref, 'Namespace', () => client.listAll('listNamespaces', {}));
}

export async function agentId(client: ApiClient, ns: string, ref: string): Promise<string> {
  return byNameOrId('agent', ref, 'Agent', () => client.listAll('listAgents', { params: { ns } }), ' in this Namespace');
}

export async function secretId(client: ApiClient, ns: string, ref: string): Promise<string> {
  return byNameOrId('secret', ref, 'Secret', () => client.listAll('listSecrets', { params: { ns } }), ' in this Namespace');
}

export async function configurationId(client: ApiClient, ns: string, ref: string): Promise<string> {
  return byNameOrId('configuration', ref, 'Configuration', () => client.listAll('listConfigurations', { params: { ns } }), ' in this Namespace');
}

/** A revision id from an id or a revision number of the Agent (`3`, or `latest`). */
export async function revisionId(client: ApiClient, ns: string, agent: string, ref: string): Promise<string> {
  if (looksLikeId('agent_revision', ref)) return ref;
  if (ref === 'latest') {
    const newest = (await client.call('listAgentRevisions', { params: { ns, id: agent }, query: { limit: 1 } })).data.items[0];
    if (!newest) throw new CliError('The Agent has no revision yet: deploy it first', EXIT.NOT_FOUND, 'NOT_FOUND');
    return newest.id;
  }
  const number = Number(ref);
  if (!Number.isInteger(number) || number < 1) throw new CliError(`A revision is a number, \`latest\` or an id (rev_…); got ${JSON.stringify(ref)}`, EXIT.USAGE);
  const found = (await client.listAll('listAgentRevisions', { params: { ns, id: agent } })).find((revision) => revision.revision === number);
  if (!found) throw new CliError(`The Agent has no revision ${number}`, EXIT.NOT_FOUND, 'NOT_FOUND');
  return found.id;
}
