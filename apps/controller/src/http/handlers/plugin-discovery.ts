import type {
  DiscoverAgentPluginDetailsBody, DiscoverAgentPluginsBody, DiscoverExistingAgentPluginDetailsBody, DiscoverExistingAgentPluginsBody,
} from '@occ/contracts';
import { discoverForAgent, discoverForNewAgent, type CreateTimeCredential } from '../../core/use-cases/discover-plugins.ts';
import { ok, type HandlerMap } from './handler.ts';

/** Only the credential fields travel on; the rest of the body is the catalog query. */
const credentialOf = (body: CreateTimeCredential): CreateTimeCredential => ({ harness: body.harness, accessToken: body.accessToken, secretRef: body.secretRef });
const listQuery = (body: { q?: string; cursor?: string }) => ({ op: 'list' as const, q: body.q, cursor: body.cursor });
const detailsQuery = (body: { pluginId: string }) => ({ op: 'details' as const, pluginId: body.pluginId });

export const pluginDiscoveryHandlers: HandlerMap = {
  discoverAgentPlugins: async ({ deps, caller, params, body, signal }) => {
    const b = body as DiscoverAgentPluginsBody;
    return ok(await discoverForNewAgent(deps, caller, params.ns, credentialOf(b), listQuery(b), signal));
  },
  discoverAgentPluginDetails: async ({ deps, caller, params, body, signal }) => {
    const b = body as DiscoverAgentPluginDetailsBody;
    return ok(await discoverForNewAgent(deps, caller, params.ns, credentialOf(b), detailsQuery(b), signal));
  },
  discoverExistingAgentPlugins: async ({ deps, caller, params, body, signal }) =>
    ok(await discoverForAgent(deps, caller, params.ns, params.id, listQuery(body as DiscoverExistingAgentPluginsBody), signal)),
  discoverExistingAgentPluginDetails: async ({ deps, caller, params, body, signal }) =>
    ok(await discoverForAgent(deps, caller, params.ns, params.id, detailsQuery(body as DiscoverExistingAgentPluginDetailsBody), signal)),
};
