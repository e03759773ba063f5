import type { Agent } from '@occ/contracts';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from '../../core/use-cases/agents.ts';
import { computeCapabilities, harnessCapabilities } from '../../core/use-cases/plugin-policies.ts';
import { expectedVersion, withEtag } from './etag.ts';
import { none, ok, type HandlerMap, type HandlerResult } from './handler.ts';

/** The Agent's version is its entity tag. */
const agentEtag = (agent: Agent): HandlerResult<Agent> => withEtag(agent, agent.version);

export const agentHandlers = {
  createAgent: async ({ deps, caller, params, body }) => agentEtag(await createAgent(deps, caller, params.ns, body)),
  listAgents: async ({ deps, caller, params, query }) => ok(await listAgents(deps, caller, params.ns, query)),
  getAgent: async ({ deps, caller, params }) => agentEtag(await getAgent(deps, caller, params.ns, params.id)),
  updateAgent: async ({ deps, caller, params, body, headers }) => agentEtag(await updateAgent(deps, caller, params.ns, params.id, body, expectedVersion(headers['if-match']))),
  deleteAgent: async ({ deps, caller, params }) => (await deleteAgent(deps, caller, params.ns, params.id), none()),
  getAgentPluginCapabilities: async ({ deps, caller, params }) => {
    const agent = await getAgent(deps, caller, params.ns, params.id);
    return ok({ harness: agent.harness, ...harnessCapabilities(deps.pluginDrivers, agent.harness), compute: computeCapabilities(deps.compute) });
  },
} satisfies Partial<HandlerMap>;
