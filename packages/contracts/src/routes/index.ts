import { agentRoutes } from './agents.ts';
import { configurationRoutes } from './configurations.ts';
import { deploymentRoutes } from './deployments.ts';
import { iamRoutes } from './iam.ts';
import { namespaceRoutes } from './namespaces.ts';
import { pluginDiscoveryRoutes } from './plugin-discovery.ts';
import type { RouteContract } from './route-contract.ts';
import { secretRoutes } from './secrets.ts';
import { systemRoutes } from './system.ts';

export * from './route-contract.ts';

/** Every route of the public API. Fastify registration and /openapi.json are generated from it. */
export const routeTable: readonly RouteContract[] = [
  ...systemRoutes,
  ...namespaceRoutes,
  ...secretRoutes,
  ...configurationRoutes,
  ...agentRoutes,
  ...pluginDiscoveryRoutes,
  ...deploymentRoutes,
  ...iamRoutes,
];
