import type { AgentDrift } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { snapshotDifferences } from '../revision-drift.ts';

const NOTHING_TO_COMPARE = {
  inSync: false,
  plugins: { added: [], removed: [], changed: [] },
  pluginApprovers: false,
  harnessAuth: false,
  configuration: null,
  computeDriver: null,
};

/**
 * How the Agent's desired state differs from its active revision: what a plain deploy would
 * change. Reads stored rows only (the Configuration's current generation, never its values).
 */
export async function getAgentDrift(deps: ControllerDeps, _caller: Caller, namespaceId: string, agentId: string): Promise<AgentDrift> {
  return deps.state.read(async (uow) => {
    const agent = await uow.agents.get(namespaceId, agentId);
    if (!agent) throw notFound('Agent');
    const active = agent.activeRevisionId === null ? null : await uow.revisions.get(namespaceId, agentId, agent.activeRevisionId);
    if (!active) return { agentId, activeRevisionId: null, activeRevision: null, ...NOTHING_TO_COMPARE };
    const configuration = await uow.configurations.get(namespaceId, agent.configurationId);
    const desired = {
      plugins: agent.plugins,
      pluginApprovers: agent.pluginApprovers,
      harnessAuth: agent.harnessAuth,
      // A bound Configuration cannot be deleted (references.ts), so it is found; were it not, only the binding is compared.
      configuration: { id: agent.configurationId, generation: configuration?.generation ?? active.configuration.generation },
      computeDriverId: deps.compute?.id ?? active.computeDriverId,
    };
    return { agentId, activeRevisionId: active.id, activeRevision: active.revision, ...snapshotDifferences(desired, active) };
  });
}
