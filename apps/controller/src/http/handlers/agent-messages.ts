import { openAgentMessage } from '../../core/use-cases/agent-messages.ts';
import { ok, type HandlerMap } from './handler.ts';

export const agentMessageHandlers = {
  sendAgentMessage: async ({ deps, caller, params, body, signal }) => ok(await openAgentMessage(deps, caller, params.ns, params.id, body, signal)),
} satisfies Partial<HandlerMap>;
