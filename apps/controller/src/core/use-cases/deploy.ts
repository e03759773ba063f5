import type { Agent, AgentRevision, AgentRevisionView, Configuration } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, invalid, notFound } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { ComputeValidationError } from '../ports/compute-driver.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { validatePluginPolicies } from './plugin-policies.ts';
import { requireConfigurationReference, requireSecretReference } from './references.ts';
import { revisionView } from './revision-view.ts';

/** The idempotency key of a revision's reconcile work. */
export const reconcileKey = (revisionId: string) => `agent_revision:${revisionId}:reconcile`;

/** Every Secret the revision will use: its harness auth and its Configuration's bindings, with their pointers. */
export function boundSecrets(agent: Pick<Agent, 'harnessAuth'>, configuration: Pick<Configuration, 'secretBindings'>): { secretId: string; pointer: string }[] {
  const bound = Object.entries(configuration.secretBindings).map(([env, b]) => ({ secretId: b.secretId, pointer: `/configuration/secretBindings/${env}/secretId` }));
  if (agent.harnessAuth) bound.unshift({ secretId: agent.harnessAuth.secretId, pointer: '/harnessAuth/secretId' });
  return bound;
}

/** The Agent's own principal must also hold secret:operate on what it will use. */
async function requireAgentSecretGrants(uow: UnitOfWork, caller: Caller, agent: Agent, secrets: { secretId: string }[]): Promise<void> {
  const agentCaller: Caller = { principalId: agent.servicePrincipalId, requestId: caller.requestId, policy: await uow.iam.loadPolicy(agent.servicePrincipalId) };
  for (const { secretId } of secrets) {
    if (!can(agentCaller, 'operate', { kind: 'secret', id: secretId, namespaceId: agent.namespaceId })) {
      throw new OccError('FORBIDDEN', `The Agent's service principal needs secret:operate on Secret ${secretId}.`);
    }
  }
}

export function admitRevision(agent: Agent, configuration: Configuration, ids: { id: string; revision: number; actorId: string; pluginDriverId: string | null; computeDriverId: string; createdAt: string }): AgentRevision {
  return {
    id: ids.id,
    namespaceId: agent.namespaceId,
    agentId: agent.id,
    revision: ids.revision,
    harness: agent.harness,
    harnessAuth: agent.harnessAuth,
    pluginDriverId: ids.pluginDriverId,
    computeDriverId: ids.computeDriverId,
    plugins: agent.plugins,
    pluginApprovers: agent.pluginApprovers,
    configuration: { id: configuration.id, generation: configuration.generation, values: configuration.values, secretBindings: configuration.secretBindings },
    servicePrincipalId: agent.servicePrincipalId,
    actorId: ids.actorId,
    createdAt: ids.createdAt,
  };
}

/**
 * Admission: re-validates the Agent exactly as a save would, re-checks the grants on what the
 * revision references, then in ONE transaction records the immutable revision, the desired
 * state, the work item and the audit event. Native metadata is resolved later, at startup.
 */
export async function deployAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string): Promise<AgentRevisionView> {
  const compute = deps.compute;
  if (!compute) throw new OccError('NOT_IMPLEMENTED', 'No ComputeDriver is configured on this Installation.');
  return deps.state.transact(async (uow) => {
    const agent = await uow.agents.getForUpdate(namespaceId, agentId);
    if (!agent) throw notFound('Agent');
    validatePluginPolicies(deps.pluginDrivers, agent.harness, agent.plugins, agent.pluginApprovers);
    const configuration = await requireConfigurationReference(uow, caller, namespaceId, agent.configurationId, '/configurationId');
    const secrets = boundSecrets(agent, configuration);
    for (const { secretId, pointer } of secrets) await requireSecretReference(uow, caller, namespaceId, secretId, pointer);
    await requireAgentSecretGrants(uow, caller, agent, secrets);

    const revision = admitRevision(agent, configuration, {
      id: newId('agent_revision'),
      revision: await uow.agents.nextRevisionNumber(namespaceId, agentId),
      actorId: caller.principalId,
      pluginDriverId: deps.pluginDrivers[agent.harness]?.id ?? null,
      computeDriverId: compute.id,
      createdAt: deps.now().toISOString(),
    });
    try {
      compute.validateRevision(revision);
    } catch (error) {
      if (error instanceof ComputeValidationError) throw invalid(error.message, [{ path: '', code: 'UNSUPPORTED_VALUE' }]);
      throw error;
    }
    const stored = await uow.revisions.insert(revision);
    await uow.agents.setDesiredState(namespaceId, agentId, 'running');
    const item = await uow.work.enqueue({
      key: reconcileKey(stored.id), kind: 'reconcile_revision', lane: agentId, namespaceId, agentId, revisionId: stored.id,
      actorId: caller.principalId, maxAttempts: deps.work.maxAttempts, deadlineAt: new Date(deps.now().getTime() + deps.work.convergenceMs),
    });
    await recordAudit(uow, caller, {
      action: 'agents.deploy', namespaceId, resource: { kind: 'agent', id: agentId },
      details: { revisionId: stored.id, revision: stored.revision, workId: item.id, pluginIds: Object.keys(stored.plugins).sort(), computeDriverId: compute.id },
    });
    // Admission required configuration:read above, so the answer carries the snapshot it admitted.
    return revisionView(caller, stored);
  });
}

export async function stopAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string): Promise<{ agentId: string; desiredState: 'stopped'; workId: string }> {
  return deps.state.transact(async (uow) => {
    const agent = await uow.agents.getForUpdate(namespaceId, agentId);
    if (!agent) throw notFound('Agent');
    await uow.agents.setDesiredState(namespaceId, agentId, 'stopped');
    const item = await uow.work.enqueue({
      key: `agent:${agentId}:stop:${newId('work_item')}`, kind: 'stop_agent', lane: agentId, namespaceId, agentId,
      actorId: caller.principalId, maxAttempts: deps.work.maxAttempts, deadlineAt: new Date(deps.now().getTime() + deps.work.convergenceMs),
    });
    await recordAudit(uow, caller, { action: 'agents.stop', namespaceId, resource: { kind: 'agent', id: agentId }, details: { workId: item.id, activeRevisionId: agent.activeRevisionId } });
    return { agentId, desiredState: 'stopped', workId: item.id };
  });
}
