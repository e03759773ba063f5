import type { DiscoverySecretRef, Harness, PluginCatalogEntry, PluginCatalogPage } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';

/**
 * What the picker needs from the API: the typed client's `call`, nothing more. Taking the real
 * client's type (rather than a parallel interface) means the picker cannot drift from the route
 * table, and tests hand in a scripted `call` that records each request's AbortSignal.
 */
export type DiscoveryApi = Pick<ApiClient, 'call'>;

/**
 * Whose catalog the picker browses. Before the Agent exists: its harness and a Secret reference,
 * or no credential (curated catalogs take none). A typed PAT is deliberately not modelled: the
 * console keeps no token in memory; it is saved as a Secret first and referenced. An existing
 * Agent: its id only, because the server uses the Agent's own harness and bound Secret.
 */
export type DiscoveryCredential =
  | { kind: 'create'; namespaceId: string; harness: Harness; secretRef: DiscoverySecretRef | null }
  | { kind: 'agent'; namespaceId: string; agentId: string };

export interface PageRequest {
  q: string;
  cursor: string | undefined;
}

/** Page one, or the page at `cursor`, of the credential's catalog. An empty `q` is not sent. */
export async function fetchPage(api: DiscoveryApi, credential: DiscoveryCredential, request: PageRequest, signal: AbortSignal): Promise<PluginCatalogPage> {
  const search = { ...(request.q === '' ? {} : { q: request.q }), ...(request.cursor === undefined ? {} : { cursor: request.cursor }) };
  if (credential.kind === 'agent') {
    const result = await api.call('discoverExistingAgentPlugins', { params: { ns: credential.namespaceId, id: credential.agentId }, body: search, signal });
    return result.data;
  }
  const body = { harness: credential.harness, ...(credential.secretRef ? { secretRef: credential.secretRef } : {}), ...search };
  const result = await api.call('discoverAgentPlugins', { params: { ns: credential.namespaceId }, body, signal });
  return result.data;
}

/** One entry's details: the route that answers its tool inventory when the page said `null`. */
export async function fetchDetails(api: DiscoveryApi, credential: DiscoveryCredential, pluginId: string, signal: AbortSignal): Promise<PluginCatalogEntry> {
  if (credential.kind === 'agent') {
    const result = await api.call('discoverExistingAgentPluginDetails', { params: { ns: credential.namespaceId, id: credential.agentId }, body: { pluginId }, signal });
    return result.data;
  }
  const body = { harness: credential.harness, ...(credential.secretRef ? { secretRef: credential.secretRef } : {}), pluginId };
  const result = await api.call('discoverAgentPluginDetails', { params: { ns: credential.namespaceId }, body, signal });
  return result.data;
}
