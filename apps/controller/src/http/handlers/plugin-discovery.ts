import { discoverForAgent, discoverForNewAgent, type CreateTimeCredential } from '../../core/use-cases/discover-plugins.ts';
import { ok, type HandlerMap } from './handler.ts';

/** Only the credential fields travel on; the rest of the body is the catalog query. */
const credentialOf = (body: CreateTimeCredential): CreateTimeCredential => ({ harness: body.harness, accessToken: body.accessToken, secretRef: body.secretRef });
const listQuery = (body: { q?: string; cursor?: string }) => ({ op: 'list' as const, q: body.q, cursor: body.cursor });
const detailsQuery = (body: { pluginId: string }) => ({ op: 'details' as const, pluginId: body.pluginId });

export const pluginDiscoveryHandlers = {
  discoverAgentPlugins: async ({ deps, caller, params, body, signal }) => ok(await discoverForNewAgent(deps, caller, params.ns, credentialOf(body), listQuery(body), signal)),
  discoverAgentPluginDetails: async ({ deps, caller, params, body, signal }) =>
    ok(await discoverForNewAgent(deps, caller, params.ns, credentialOf(body), detailsQuery(body), signal)),
  discoverExistingAgentPlugins: async ({ deps, caller, params, body, signal }) => ok(await discoverForAgent(deps, caller, params.ns, params.id, listQuery(body), signal)),
  discoverExistingAgentPluginDetails: async ({ deps, caller, params, body, signal }) => ok(await discoverForAgent(deps, caller, params.ns, params.id, detailsQuery(body), signal)),
} satisfies Partial<HandlerMap>;
