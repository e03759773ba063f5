import type { Agent } from '@occ/contracts';
import { OccError } from '../../core/errors.ts';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from '../../core/use-cases/agents.ts';
import { harnessCapabilities } from '../../core/use-cases/plugin-policies.ts';
import { none, ok, type HandlerMap, type HandlerResult } from './handler.ts';

/** The Agent's version is its entity tag. */
const withEtag = (agent: Agent): HandlerResult<Agent> => ({ data: agent, headers: { etag: `"${agent.version}"` } });

/** If-Match: absent or `*` → no precondition; `"N"` (or W/"N") → version N; anything else fails. */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,9})"$/.exec(ifMatch.trim());
  if (!match) throw new OccError('PRECONDITION_FAILED', 'If-Match must be an ETag returned by this API.');
  return Number(match[1]);
}

export const agentHandlers = {
  createAgent: async ({ deps, caller, params, body }) => withEtag(await createAgent(deps, caller, params.ns, body)),
  listAgents: async ({ deps, caller, params, query }) => ok(await listAgents(deps, caller, params.ns, query)),
  getAgent: async ({ deps, caller, params }) => withEtag(await getAgent(deps, caller, params.ns, params.id)),
  updateAgent: async ({ deps, caller, params, body, headers }) =>
    withEtag(await updateAgent(deps, caller, params.ns, params.id, body, expectedVersion(headers['if-match']))),
  deleteAgent: async ({ deps, caller, params }) => (await deleteAgent(deps, caller, params.ns, params.id), none()),
  getAgentPluginCapabilities: async ({ deps, caller, params }) => {
    const agent = await getAgent(deps, caller, params.ns, params.id);
    return ok({ harness: agent.harness, ...harnessCapabilities(deps.pluginDrivers, agent.harness) });
  },
} satisfies Partial<HandlerMap>;
