import type { TSchema } from '@sinclair/typebox';
import {
  DiscoverAgentPluginDetailsBodySchema,
  DiscoverAgentPluginsBodySchema,
  DiscoverExistingAgentPluginDetailsBodySchema,
  DiscoverExistingAgentPluginsBodySchema,
} from '../resources/plugin-discovery.ts';
import { PluginCatalogEntrySchema, PluginCatalogPageSchema } from '../resources/plugin-catalog.ts';
import { NsChildParams, NsParams } from './params.ts';
import { DISCOVERY_ERRORS, type RouteContract, type RoutePermission } from './route-contract.ts';

/** Create-time discovery is checked like creating the Agent: `agent:create` on the Namespace. */
const agentCreate: RoutePermission = { actions: ['create'], resourceKind: 'agent', target: { scope: 'child_collection' }, mode: 'exact' };
/** Existing-Agent discovery: Agent read or update on that exact Agent. */
const agentReadOrUpdate: RoutePermission = { actions: ['read', 'update'], resourceKind: 'agent', target: { scope: 'child', idParam: 'id' }, mode: 'exact' };

/** A discovery route: a read sent as POST (its body may carry a credential), so no audit event. */
function discoveryRoute<const Id extends string, Params extends TSchema, Body extends TSchema, Data extends TSchema>(
  operationId: Id,
  path: string,
  summary: string,
  permission: RoutePermission,
  params: Params,
  body: Body,
  data: Data,
) {
  return {
    operationId,
    method: 'POST',
    path,
    summary,
    tag: 'agents',
    auth: 'api_key',
    readOnly: true,
    successStatus: 200,
    errors: DISCOVERY_ERRORS,
    permission,
    schemas: { params, body, data },
  } as const satisfies RouteContract;
}

/**
 * Credential-scoped plugin discovery (docs/api.md, "Plugin discovery"; the order of checks is in
 * docs/api.md). Reads only: no audit event, nothing persisted, `Cache-Control: no-store`.
 * The literal segment `plugins` cannot collide with `/agents/:id`: Agent ids are `agt_<uuid>`.
 */
export const pluginDiscoveryRoutes = [
  discoveryRoute(
    'discoverAgentPlugins',
    '/namespaces/:ns/agents/plugins',
    "Search one page of a harness's plugin catalog before the Agent exists (transient accessToken, same-Namespace secretRef, or no credential).",
    agentCreate,
    NsParams,
    DiscoverAgentPluginsBodySchema,
    PluginCatalogPageSchema,
  ),
  discoveryRoute(
    'discoverAgentPluginDetails',
    '/namespaces/:ns/agents/plugins/details',
    'One catalog entry with its tools, before the Agent exists.',
    agentCreate,
    NsParams,
    DiscoverAgentPluginDetailsBodySchema,
    PluginCatalogEntrySchema,
  ),
  discoveryRoute(
    'discoverExistingAgentPlugins',
    '/namespaces/:ns/agents/:id/plugins',
    "Search one page of this Agent's plugin catalog with its bound credential.",
    agentReadOrUpdate,
    NsChildParams,
    DiscoverExistingAgentPluginsBodySchema,
    PluginCatalogPageSchema,
  ),
  discoveryRoute(
    'discoverExistingAgentPluginDetails',
    '/namespaces/:ns/agents/:id/plugins/details',
    "One entry of this Agent's plugin catalog with its tools.",
    agentReadOrUpdate,
    NsChildParams,
    DiscoverExistingAgentPluginDetailsBodySchema,
    PluginCatalogEntrySchema,
  ),
] as const satisfies readonly RouteContract[];
