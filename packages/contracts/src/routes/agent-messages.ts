import { AgentMessageBodySchema, AgentMessageEventSchema } from '../resources/agent-messages.ts';
import { NsChildParams } from './params.ts';
import type { RouteContract } from './route-contract.ts';

export const agentMessageRoutes = [
  {
    operationId: 'sendAgentMessage',
    method: 'POST',
    path: '/namespaces/:ns/agents/:id/messages',
    tag: 'agents',
    summary:
      "Relay one message to the Agent's running gateway (its active revision) and stream the reply as Server-Sent Events: `accepted` (the conversation id), `reply` pieces of text, then `done` or `error`. Needs `agent:message`; audited (`agents.message`: who, which revision, the conversation and the length — never the text). The gateway's token never leaves OCC. Not running → 409 `AGENT_NOT_RUNNING`; a ComputeDriver that cannot relay → 501.",
    auth: 'api_key',
    successStatus: 200,
    errors: [400, 401, 403, 404, 409, 413, 415, 500, 501, 503],
    audit: 'agents.message',
    permission: { actions: ['message'], resourceKind: 'agent', target: { scope: 'child', idParam: 'id' }, mode: 'exact' },
    produces: 'text/event-stream',
    schemas: { params: NsChildParams, body: AgentMessageBodySchema, data: AgentMessageEventSchema },
  },
] as const satisfies readonly RouteContract[];
