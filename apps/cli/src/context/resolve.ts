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

function pick<T extends Named>(items: T[], ref: string, noun: string, where: string): T {
  const found = items.filter((item) => item.name === ref);
  if (found.length === 0) throw new CliError(`No ${noun} named ${JSON.stringify(ref)}${where}`, EXIT.NOT_FOUND, 'NOT_FOUND');
  return found[0]!;
}

/** A Namespace id from a name or an id. */
export async function namespaceId(client: ApiClient, ref: string | undefined): Promise<string> {
  if (!ref) throw new CliError('No Namespace: pass -n NAMESPACE, or set one with `occ context set-namespace NAME`', EXIT.USAGE);
  if (looksLikeId('namespace', ref)) return ref;
  return pick(await client.listAll('listNamespaces', {}), ref, 'Namespace', '').id;
}

export async function agentId(client: ApiClient, ns: string, ref: string): Promise<string> {
  if (looksLikeId('agent', ref)) return ref;
  return pick(await client.listAll('listAgents', { params: { ns } }), ref, 'Agent', ' in this Namespace').id;
}

export async function secretId(client: ApiClient, ns: string, ref: string): Promise<string> {
  if (looksLikeId('secret', ref)) return ref;
  return pick(await client.listAll('listSecrets', { params: { ns } }), ref, 'Secret', ' in this Namespace').id;
}

export async function configurationId(client: ApiClient, ns: string, ref: string): Promise<string> {
  if (looksLikeId('configuration', ref)) return ref;
  return pick(await client.listAll('listConfigurations', { params: { ns } }), ref, 'Configuration', ' in this Namespace').id;
}

/** A revision id from an id or a revision number of the Agent (`3`, or `latest`). */
export async function revisionId(client: ApiClient, ns: string, agent: string, ref: string): Promise<string> {
  if (looksLikeId('agent_revision', ref)) return ref;
  const page = (await client.call('listAgentRevisions', { params: { ns, id: agent }, query: { limit: 1 } })).data;
  const newest = page.items[0];
  if (ref === 'latest') {
    if (!newest) throw new CliError('The Agent has no revision yet: deploy it first', EXIT.NOT_FOUND, 'NOT_FOUND');
    return newest.id;
  }
  const number = Number(ref);
  if (!Number.isInteger(number) || number < 1) throw new CliError(`A revision is a number, \`latest\` or an id (rev_…); got ${JSON.stringify(ref)}`, EXIT.USAGE);
  const found = (await client.listAll('listAgentRevisions', { params: { ns, id: agent } })).find((revision) => revision.revision === number);
  if (!found) throw new CliError(`The Agent has no revision ${number}`, EXIT.NOT_FOUND, 'NOT_FOUND');
  return found.id;
}
