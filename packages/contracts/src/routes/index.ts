import { agentMessageRoutes } from './agent-messages.ts';
import { agentRoutes } from './agents.ts';
import { callerRoutes } from './caller.ts';
import { configurationRoutes } from './configurations.ts';
import { deploymentRoutes } from './deployments.ts';
import { iamRoutes } from './iam.ts';
import { namespaceRoutes, namespaceSshHostRoutes } from './namespaces.ts';
import { pluginDiscoveryRoutes } from './plugin-discovery.ts';
import type { RouteContract } from './route-contract.ts';
import { secretRoutes } from './secrets.ts';
import { sessionRoutes } from './sessions.ts';
import { signInRoutes } from './sign-in.ts';
import { systemRoutes } from './system.ts';

export * from './route-contract.ts';
export * from './sessions.ts';
// The event schema of the deployment event stream travels with its route.
export * from '../resources/deployment-events.ts';

/**
 * Every route of the public API with its exact types: each route's operationId and schemas stay
 * literal, so a handler's params, query, body and answer are typed from its own route.
 */
export const apiRoutes = [
  ...systemRoutes,
  ...callerRoutes,
  ...namespaceRoutes,
  ...secretRoutes,
  ...configurationRoutes,
  ...agentRoutes,
  ...pluginDiscoveryRoutes,
  ...deploymentRoutes,
  ...agentMessageRoutes,
  ...iamRoutes,
  ...namespaceSshHostRoutes,
  ...sessionRoutes,
  ...signInRoutes,
] as const satisfies readonly RouteContract[];

/** One route of the table, with its exact types. */
export type ApiRoute = (typeof apiRoutes)[number];
export type OperationId = ApiRoute['operationId'];
/** The route a given operationId names. */
export type RouteOf<Id extends OperationId> = Extract<ApiRoute, { operationId: Id }>;

/**
 * Every route of the public API. Fastify registration and /openapi.json are generated from it.
 * @alias apiRoutes, widened to RouteContract (knip: a deliberate second name).
 */
export const routeTable: readonly RouteContract[] = apiRoutes;
