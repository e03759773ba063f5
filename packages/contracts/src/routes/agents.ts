import { AgentSchema, CreateAgentBodySchema, UpdateAgentBodySchema } from '../resources/agent.ts';
import { AgentPluginCapabilitiesSchema } from '../resources/installation.ts';
import { NsChildParams } from './params.ts';
import { namespacedCrudRoutes } from './namespaced-crud.ts';
import { READ_ERRORS, type RouteContract } from './route-contract.ts';

export const agentRoutes = [
  ...namespacedCrudRoutes({
    kind: 'agent',
    noun: 'Agent',
    plural: 'agents',
    item: AgentSchema,
    createBody: CreateAgentBodySchema,
    updateBody: UpdateAgentBodySchema,
    updateNote: 'Honours If-Match (412 PRECONDITION_FAILED on a stale ETag). plugins: omitted preserves, {} clears, a non-empty map replaces.',
  }),
  {
    operationId: 'getAgentPluginCapabilities',
    method: 'GET',
    path: '/namespaces/:ns/agents/:id/plugins/capabilities',
    summary: "The plugin policy capabilities of this Agent's harness.",
    tag: 'agents',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: { actions: ['read', 'update'], resourceKind: 'agent', target: { scope: 'child', idParam: 'id' }, mode: 'exact' },
    schemas: { params: NsChildParams, data: AgentPluginCapabilitiesSchema },
  },
] as const satisfies readonly RouteContract[];
