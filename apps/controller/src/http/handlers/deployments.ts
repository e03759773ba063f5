import { getAgentDrift } from '../../core/use-cases/agent-drift.ts';
import { deployAgent, stopAgent } from '../../core/use-cases/deploy.ts';
import { openDeploymentEvents } from '../../core/use-cases/deployment-events.ts';
import { getDeploymentStatus, getRevision, listRevisions } from '../../core/use-cases/deployments.ts';
import { readRuntimeLogs } from '../../core/use-cases/runtime-logs.ts';
import { getRuntimeView } from '../../core/use-cases/runtime-view.ts';
import { ok, type HandlerMap } from './handler.ts';

export const deploymentHandlers = {
  deployAgent: async ({ deps, caller, params, body }) => {
    const result = await deployAgent(deps, caller, params.ns, params.id, body);
    // A dry run, or a deploy with nothing to change, admitted nothing: 200, not the deploy's 202.
    return 'dryRun' in result || 'unchanged' in result ? { data: result, status: 200 } : ok(result);
  },
  getAgentDrift: async ({ deps, caller, params }) => ok(await getAgentDrift(deps, caller, params.ns, params.id)),
  stopAgent: async ({ deps, caller, params }) => ok(await stopAgent(deps, caller, params.ns, params.id)),
  listAgentRevisions: async ({ deps, caller, params, query }) => ok(await listRevisions(deps, caller, params.ns, params.id, query)),
  getAgentRevision: async ({ deps, caller, params }) => ok(await getRevision(deps, caller, params.ns, params.id, params.rev)),
  getDeploymentStatus: async ({ deps, caller, params }) => ok(await getDeploymentStatus(deps, caller, params.ns, params.id, params.rev)),
  streamDeploymentEvents: async ({ deps, caller, params, headers, signal }) => {
    const lastEventId = headers['last-event-id'];
    return ok(await openDeploymentEvents(deps, caller, params.ns, params.id, params.rev, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, signal));
  },
  getRuntimeView: async ({ deps, caller, params }) => ok(await getRuntimeView(deps, caller, params.ns, params.id, params.rev)),
  getRuntimeLogs: async ({ deps, caller, params, query }) => ok(await readRuntimeLogs(deps, caller, params.ns, params.id, params.rev, query.tail)),
} satisfies Partial<HandlerMap>;
