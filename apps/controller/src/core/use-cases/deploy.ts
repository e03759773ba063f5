import type { Agent, AgentRevision, AgentRevisionView, Configuration, DeployDryRun, DeployUnchanged, NativeConfigurationPreview } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, notFound } from '../errors.ts';
import { can, requireAccess, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import type { ComputeDriver } from '../ports/compute-driver.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { admitsNothingNew } from '../revision-drift.ts';
import { refusedByCompute } from './compute-refusal.ts';
import { refuseComputeLimits, validatePluginPolicies } from './plugin-policies.ts';
import { requireConfigurationReference, requireConfigurationSnapshotAccess, requireSecretReference } from './references.ts';
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

/** The Configuration content a revision snapshots (a live Configuration, or an older revision's snapshot). */
type ConfigurationSnapshot = Pick<Configuration, 'id' | 'generation' | 'values' | 'secretBindings'>;

function admitRevision(
  agent: Agent,
  configuration: ConfigurationSnapshot,
  ids: { id: string; revision: number; actorId: string; pluginDriverId: string | null; computeDriverId: string; createdAt: string },
): AgentRevision {
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

/** The optional body of a deploy (DeployRequestSchema). */
export interface DeployOptions {
  /** Every admission check, nothing written: no revision, number, work item or audit event. */
  dryRun?: boolean;
  /** Rollback: an older revision of this Agent (id or number) whose snapshot is admitted anew and becomes the desired state. */
  fromRevision?: string | number;
  /** A new revision even when it would equal the active one. */
  restart?: boolean;
}

/** An older revision of the Agent by id or by number; unknown → 404 at `/fromRevision`. */
async function requireOlderRevision(uow: UnitOfWork, namespaceId: string, agentId: string, from: string | number): Promise<AgentRevision> {
  // By number: the one row of the newest-first scan that starts just above it.
  const found =
    typeof from === 'number'
      ? (await uow.revisions.scan(namespaceId, agentId, { after: String(from + 1), limit: 1 })).find((r) => r.revision === from)
      : await uow.revisions.get(namespaceId, agentId, from);
  if (!found) throw new OccError('NOT_FOUND', 'Revision not found.', [{ path: '/fromRevision', code: 'INVALID_VALUE' }]);
  return found;
}

/**
 * What the revision will snapshot: the Agent's desired state with its Configuration as it is
 * now, or (rollback) the older revision's plugin selections, approvers, harness auth and
 * Configuration snapshot. Either way it is checked as a save would check it, against today's
 * PluginDriver and today's grants of the caller and of the Agent's own principal.
 */
async function admissionSource(
  deps: ControllerDeps,
  uow: UnitOfWork,
  caller: Caller,
  agent: Agent,
  options: DeployOptions,
): Promise<{ agent: Agent; configuration: ConfigurationSnapshot; from: AgentRevision | null }> {
  const from = options.fromRevision === undefined ? null : await requireOlderRevision(uow, agent.namespaceId, agent.id, options.fromRevision);
  const source: Agent = from ? { ...agent, harness: from.harness, harnessAuth: from.harnessAuth, plugins: from.plugins, pluginApprovers: from.pluginApprovers } : agent;
  validatePluginPolicies(deps.pluginDrivers, source.harness, source.plugins, source.pluginApprovers);
  refuseComputeLimits(deps.compute, source.plugins, source.pluginApprovers);
  let configuration: ConfigurationSnapshot;
  if (from) {
    requireConfigurationSnapshotAccess(caller, agent.namespaceId, from.configuration.id, '/configuration/id');
    configuration = from.configuration;
  } else {
    configuration = await requireConfigurationReference(uow, caller, agent.namespaceId, agent.configurationId, '/configurationId');
  }
  const secrets = boundSecrets(source, configuration);
  for (const { secretId, pointer } of secrets) await requireSecretReference(uow, caller, agent.namespaceId, secretId, pointer);
  await requireAgentSecretGrants(uow, caller, source, secrets);
  return { agent: source, configuration, from };
}

function validateOnCompute(compute: ComputeDriver, revision: AgentRevision): void {
  refusedByCompute(() => compute.validateRevision(revision));
}

/** For OpenClaw, the runtime's own translation; for other harnesses, why nothing static can be shown. */
function nativePreview(deps: ControllerDeps, revision: AgentRevision): NativeConfigurationPreview {
  const driver = deps.pluginDrivers[revision.harness];
  if (!driver) return { status: 'unavailable', harness: revision.harness, reason: 'NO_PLUGIN_DRIVER' };
  if (!driver.previewNativeConfiguration)
    return { status: 'unavailable', harness: revision.harness, reason: revision.harness === 'codex' ? 'RESOLVED_AT_STARTUP' : 'NOT_TRANSLATABLE' };
  return driver.previewNativeConfiguration(revision.plugins, revision.configuration.values);
}

/**
 * Admission: re-validates the Agent exactly as a save would, re-checks the grants on what the
 * revision references, then in ONE transaction records the immutable revision, the desired
 * state, the work item and the audit event. Native metadata is resolved later, at startup.
 * A rollback (`fromRevision`) admits an older snapshot the same way, as the next number: the
 * pointer never moves backwards and history stays append-only. A dry run stops before the
 * first write (it reads, so it spends no number and takes no lock).
 */
export async function deployAgent(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  agentId: string,
  options: DeployOptions = {},
): Promise<AgentRevisionView | DeployDryRun | DeployUnchanged> {
  const compute = deps.compute;
  if (!compute) throw new OccError('NOT_IMPLEMENTED', 'No ComputeDriver is configured on this Installation.');
  const pluginDriverId = (harness: Agent['harness']) => deps.pluginDrivers[harness]?.id ?? null;

  if (options.dryRun) {
    return deps.state.read(async (uow) => {
      const agent = await uow.agents.get(namespaceId, agentId);
      if (!agent) throw notFound('Agent');
      const source = await admissionSource(deps, uow, caller, agent, options);
      // A provisional id and number for the static check only; neither is stored nor answered.
      const revision = admitRevision(source.agent, source.configuration, {
        id: newId('agent_revision'),
        revision: (await uow.revisions.latestNumber(agentId)) + 1,
        actorId: caller.principalId,
        pluginDriverId: pluginDriverId(source.agent.harness),
        computeDriverId: compute.id,
        createdAt: deps.now().toISOString(),
      });
      validateOnCompute(compute, revision);
      return { dryRun: true as const, revision: { ...revisionView(caller, revision), id: null, revision: null }, nativeConfiguration: nativePreview(deps, revision) };
    });
  }

  return deps.state.transact(async (uow) => {
    const agent = await uow.agents.getForUpdate(namespaceId, agentId);
    if (!agent) throw notFound('Agent');
    const source = await admissionSource(deps, uow, caller, agent, options);
    const rollback = source.from ? { rollbackFrom: { revisionId: source.from.id, revision: source.from.revision } } : {};
    if (source.from) {
      // A rollback changes what the Agent should run, as an edit would: it needs `update` too.
      requireAccess(caller, ['update'], { kind: 'agent', id: agentId, namespaceId });
      await restoreDesiredState(uow, agent, source.from);
    }
    const admitted = (revision: number) =>
      admitRevision(source.agent, source.configuration, {
        id: newId('agent_revision'),
        revision,
        actorId: caller.principalId,
        pluginDriverId: pluginDriverId(source.agent.harness),
        computeDriverId: compute.id,
        createdAt: deps.now().toISOString(),
      });
    const active = options.restart ? null : await activeRevisionToKeep(uow, agent, admitted(0));
    if (active) {
      await recordAudit(uow, caller, {
        action: 'agents.deploy',
        namespaceId,
        resource: { kind: 'agent', id: agentId },
        details: { unchanged: true, revisionId: active.id, revision: active.revision, computeDriverId: compute.id, ...rollback },
      });
      return { unchanged: true as const, revision: revisionView(caller, active) };
    }
    const revision = admitted(await uow.agents.nextRevisionNumber(namespaceId, agentId));
    validateOnCompute(compute, revision);
    const stored = await uow.revisions.insert(revision);
    await uow.agents.setDesiredState(namespaceId, agentId, 'running');
    const item = await uow.work.enqueue({
      key: reconcileKey(stored.id),
      kind: 'reconcile_revision',
      lane: agentId,
      namespaceId,
      agentId,
      revisionId: stored.id,
      actorId: caller.principalId,
      maxAttempts: deps.work.maxAttempts,
      deadlineAt: new Date(deps.now().getTime() + deps.work.convergenceMs),
    });
    await recordAudit(uow, caller, {
      action: 'agents.deploy',
      namespaceId,
      resource: { kind: 'agent', id: agentId },
      details: { revisionId: stored.id, revision: stored.revision, workId: item.id, pluginIds: Object.keys(stored.plugins).sort(), computeDriverId: compute.id, ...rollback },
    });
    // Admission required configuration:read above, so the answer carries the snapshot it admitted.
    return revisionView(caller, stored);
  });
}

/**
 * A rollback is a desired-state change (as `kubectl rollout undo`): the Agent's plugins,
 * approvers, harness auth and Configuration binding become the older revision's, so the next
 * plain deploy deploys that again. The Configuration itself is shared by other Agents and is
 * not rewritten: a newer generation of it shows as drift (revision-drift.ts). A Configuration
 * deleted since cannot be bound again: the Agent keeps its current one (the revision still
 * carries the old snapshot's content).
 */
async function restoreDesiredState(uow: UnitOfWork, agent: Agent, from: AgentRevision): Promise<void> {
  const configurationId = (await uow.configurations.get(agent.namespaceId, from.configuration.id)) ? from.configuration.id : agent.configurationId;
  await uow.agents.update(agent.namespaceId, agent.id, {
    name: agent.name,
    configurationId,
    harnessAuth: from.harnessAuth,
    plugins: from.plugins,
    pluginApprovers: from.pluginApprovers,
  });
}

/**
 * The active revision when `candidate` would run exactly what it runs and nothing newer is on its
 * way: the Agent wants to run, its pointer is set, and the active revision is the newest one (a
 * newer failed or pending revision makes the deploy a real one, which replaces it).
 */
async function activeRevisionToKeep(uow: UnitOfWork, agent: Agent, candidate: AgentRevision): Promise<AgentRevision | null> {
  if (agent.desiredState !== 'running' || agent.activeRevisionId === null) return null;
  const active = await uow.revisions.get(agent.namespaceId, agent.id, agent.activeRevisionId);
  if (!active || active.revision !== (await uow.revisions.latestNumber(agent.id))) return null;
  return admitsNothingNew(candidate, active) ? active : null;
}

export async function stopAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string): Promise<{ agentId: string; desiredState: 'stopped'; workId: string }> {
  return deps.state.transact(async (uow) => {
    const agent = await uow.agents.getForUpdate(namespaceId, agentId);
    if (!agent) throw notFound('Agent');
    await uow.agents.setDesiredState(namespaceId, agentId, 'stopped');
    const item = await uow.work.enqueue({
      key: `agent:${agentId}:stop:${newId('work_item')}`,
      kind: 'stop_agent',
      lane: agentId,
      namespaceId,
      agentId,
      actorId: caller.principalId,
      maxAttempts: deps.work.maxAttempts,
      deadlineAt: new Date(deps.now().getTime() + deps.work.convergenceMs),
    });
    await recordAudit(uow, caller, {
      action: 'agents.stop',
      namespaceId,
      resource: { kind: 'agent', id: agentId },
      details: { workId: item.id, activeRevisionId: agent.activeRevisionId },
    });
    return { agentId, desiredState: 'stopped', workId: item.id };
  });
}
