import { agentMessageHandlers } from './agent-messages.ts';
import { agentHandlers } from './agents.ts';
import { callerHandlers } from './caller.ts';
import { configurationHandlers } from './configurations.ts';
import { deploymentHandlers } from './deployments.ts';
import type { HandlerMap } from './handler.ts';
import { iamHandlers } from './iam.ts';
import { namespaceHandlers } from './namespaces.ts';
import { pluginDiscoveryHandlers } from './plugin-discovery.ts';
import { secretHandlers } from './secrets.ts';
import { sessionHandlers } from './sessions.ts';
import { signInHandlers } from './sign-in.ts';
import { systemHandlers } from './system.ts';

/** operationId → handler, for every route in the route table. */
export const handlers: HandlerMap = {
  ...systemHandlers,
  ...callerHandlers,
  ...namespaceHandlers,
  ...secretHandlers,
  ...configurationHandlers,
  ...agentHandlers,
  ...pluginDiscoveryHandlers,
  ...deploymentHandlers,
  ...agentMessageHandlers,
  ...iamHandlers,
  ...sessionHandlers,
  ...signInHandlers,
};
