import type { Agent, CreateAgentBody, HarnessAuth, UpdateAgentBody } from '@occ/contracts';
import { auditEvent, recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, conflict, invalid, notFound } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import type { AgentWrite } from '../ports/agent-repository.ts';
import type { AuditEventWrite } from '../ports/audit-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { refuseUncataloguedPlugins } from './catalog-membership.ts';
import { requireNamespace } from './namespaces.ts';
import { refuseComputeLimits, validatePluginPolicies } from './plugin-policies.ts';
import { requireConfigurationReference, requireSecretReference } from './references.ts';

async function checkHarnessAuth(uow: UnitOfWork, caller: Caller, namespaceId: string, harness: Agent['harness'], auth: HarnessAuth | null): Promise<void> {
  if (!auth) return;
  if (harness !== 'codex') throw invalid('codex_pat harness auth applies only to the codex harness.', [{ path: '/harnessAuth/method', code: 'INVALID_COMBINATION' }]);
  await requireSecretReference(uow, caller, namespaceId, auth.secretId, '/harnessAuth/secretId');
}

/** What an audit event may say about an Agent's desired state: ids and policy, never values. */
function auditSummary(a: AgentWrite) {
  return { name: a.name, configurationId: a.configurationId, harnessAuthSecretId: a.harnessAuth?.secretId ?? null, pluginIds: Object.keys(a.plugins).sort() };
}

export async function createAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, body: CreateAgentBody): Promise<Agent> {
  const desired: AgentWrite = {
    name: body.name,
    configurationId: body.configurationId,
    harnessAuth: body.harnessAuth ?? null,
    plugins: body.plugins ?? {},
    pluginApprovers: body.pluginApprovers ?? null,
  };
  validatePluginPolicies(deps.pluginDrivers, body.harness, desired.plugins, desired.pluginApprovers);
  refuseComputeLimits(deps.compute, desired.plugins, desired.pluginApprovers);
  refuseUncataloguedPlugins(deps.pluginDrivers, body.harness, desired.plugins);
  return deps.state.transact(async (uow) => {
    await requireNamespace(uow, namespaceId);
    await requireConfigurationReference(uow, caller, namespaceId, desired.configurationId, '/configurationId');
    await checkHarnessAuth(uow, caller, namespaceId, body.harness, desired.harnessAuth);
    const id = newId('agent');
    // Every Agent owns a service principal: the identity the worker re-checks at deploy.
    const principal = await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'service', name: `agent:${id}`, namespaceId, agentId: id });
    const agent = await uow.agents.insert({ ...desired, id, namespaceId, harness: body.harness, servicePrincipalId: principal.id });
    await recordAudit(uow, caller, {
      action: 'agents.create',
      namespaceId,
      resource: { kind: 'agent', id },
      details: { ...auditSummary(desired), harness: body.harness, servicePrincipalId: principal.id },
    });
    return agent;
  });
}

export async function listAgents(deps: ControllerDeps, caller: Caller, namespaceId: string, query: ListQuery): Promise<Page<Agent>> {
  return deps.state.read(async (uow) => {
    await requireNamespace(uow, namespaceId);
    return pageVisible(
      `agents:${namespaceId}`,
      query,
      (p) => uow.agents.scan(namespaceId, p),
      (a) => a.id,
      (a) => can(caller, 'read', { kind: 'agent', id: a.id, namespaceId }),
    );
  });
}

export async function getAgent(deps: ControllerDeps, _caller: Caller, namespaceId: string, id: string): Promise<Agent> {
  const agent = await deps.state.read((uow) => uow.agents.get(namespaceId, id));
  if (!agent) throw notFound('Agent');
  return agent;
}

const staleIfMatch = () => new OccError('PRECONDITION_FAILED', 'The Agent changed since it was read (If-Match does not match its ETag).');

/** How many optimistic writes a PATCH tries before it waits for the row lock instead. */
const OPTIMISTIC_TRIES = 3;

interface PlannedUpdate {
  next: AgentWrite;
  audit: AuditEventWrite;
}

/** Decides a PATCH against `current`: precondition, merge, validation, references, and the audit event it will write. */
async function planUpdate(
  deps: ControllerDeps,
  uow: UnitOfWork,
  caller: Caller,
  current: Agent,
  body: UpdateAgentBody,
  expectedVersion: number | undefined,
): Promise<PlannedUpdate> {
  if (expectedVersion !== undefined && expectedVersion !== current.version) throw staleIfMatch();
  const next: AgentWrite = {
    name: body.name ?? current.name,
    configurationId: body.configurationId ?? current.configurationId,
    harnessAuth: body.harnessAuth === undefined ? current.harnessAuth : body.harnessAuth,
    plugins: body.plugins ?? current.plugins,
    pluginApprovers: body.pluginApprovers === undefined ? current.pluginApprovers : body.pluginApprovers,
  };
  if (body.plugins !== undefined || body.pluginApprovers !== undefined) {
    validatePluginPolicies(deps.pluginDrivers, current.harness, next.plugins, next.pluginApprovers);
    refuseComputeLimits(deps.compute, next.plugins, next.pluginApprovers);
  }
  // Only a new plugin map is checked: approvers alone never refuse a selection saved before.
  if (body.plugins !== undefined) refuseUncataloguedPlugins(deps.pluginDrivers, current.harness, next.plugins);
  const { namespaceId, id } = current;
  if (body.configurationId !== undefined) await requireConfigurationReference(uow, caller, namespaceId, next.configurationId, '/configurationId');
  if (body.harnessAuth) await checkHarnessAuth(uow, caller, namespaceId, current.harness, next.harnessAuth);
  const audit = auditEvent(caller, {
    action: 'agents.update',
    namespaceId,
    resource: { kind: 'agent', id },
    // The write succeeds only at current.version, so the stored version is exactly the next one.
    details: { ...auditSummary(next), version: current.version + 1, changed: Object.keys(body).sort() },
  });
  return { next, audit };
}

/**
 * PATCH: omitted fields are preserved; `plugins: {}` clears and a non-empty map replaces;
 * `pluginApprovers` likewise. With `expectedVersion` (If-Match), a stale version → 412.
 *
 * Optimistic: decide on the Agent as read, then write at that version, with the version check,
 * the change and its audit event in ONE statement (no transaction). PATCHes of one Agent in this
 * process take turns, and one queued behind another decides on the Agent that one wrote (no
 * read). When another process wrote in between, the write matches nothing and we decide again
 * on a fresh read — the outcome of waiting for its row lock; after a few losses, wait for it.
 */
export async function updateAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, id: string, body: UpdateAgentBody, expectedVersion?: number): Promise<Agent> {
  if (isRename(body)) return renameAgent(deps, caller, namespaceId, id, body, expectedVersion);
  return deps.agentWrites.run(`${namespaceId}/${id}`, async (turn) => {
    // A handed-over Agent may be behind the database: it never answers If-Match with 412 itself.
    let known = expectedVersion === undefined || turn.handedOver?.version === expectedVersion ? turn.handedOver : undefined;
    for (let tries = 0; tries < OPTIMISTIC_TRIES; tries++) {
      const { current, plan } = await deps.state.read(async (uow) => {
        const current = known ?? (await uow.agents.get(namespaceId, id));
        if (!current) throw notFound('Agent');
        return { current, plan: await planUpdate(deps, uow, caller, current, body, expectedVersion) };
      });
      known = undefined;
      const updated = await deps.state.autocommit((uow) => uow.agents.updateAtVersion(namespaceId, id, current.version, plan.next, plan.audit));
      if (updated) {
        turn.handOver(updated);
        return updated;
      }
    }
    const updated = await deps.state.transact(async (uow) => {
      const current = await uow.agents.getForUpdate(namespaceId, id);
      if (!current) throw notFound('Agent');
      const plan = await planUpdate(deps, uow, caller, current, body, expectedVersion);
      // Under the row lock the version cannot move: this write always matches.
      const written = await uow.agents.updateAtVersion(namespaceId, id, current.version, plan.next, plan.audit);
      if (!written) throw notFound('Agent');
      return written;
    });
    turn.handOver(updated);
    return updated;
  });
}

/** A rename, optionally with a configuration rebind: nothing about it depends on the Agent's current state. */
const isRename = (body: UpdateAgentBody): body is UpdateAgentBody & { name: string } =>
  body.name !== undefined && Object.keys(body).every((field) => field === 'name' || field === 'configurationId');

/**
 * A rename needs no decision on the current Agent, so it needs no read and no turn: the
 * If-Match check, the change and its audit event are one statement, and concurrent renames
 * queue on the row lock in the database (as if each had waited for the other).
 */
async function renameAgent(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  id: string,
  body: UpdateAgentBody & { name: string },
  expectedVersion: number | undefined,
): Promise<Agent> {
  const { name, configurationId } = body;
  if (configurationId !== undefined) await deps.state.read((uow) => requireConfigurationReference(uow, caller, namespaceId, configurationId, '/configurationId'));
  // The statement completes the summary from the row it writes (see AgentRepository.renameInPlace).
  const audit = auditEvent(caller, { action: 'agents.update', namespaceId, resource: { kind: 'agent', id }, details: { name, changed: Object.keys(body).sort() } });
  const change = configurationId === undefined ? { name } : { name, configurationId };
  const renamed = await deps.state.autocommit((uow) => uow.agents.renameInPlace(namespaceId, id, change, expectedVersion, audit));
  if (renamed) return renamed;
  if (expectedVersion !== undefined && (await deps.state.read((uow) => uow.agents.get(namespaceId, id)))) throw staleIfMatch();
  throw notFound('Agent');
}

/**
 * Deletes the Agent with its service principal (its keys and bindings go with it). An Agent that
 * was ever deployed may have left something on its compute target (a stopped container, the
 * Agent's network, Kubernetes objects, files): the same transaction queues `remove_agent` work,
 * and the worker, which owns every compute effect, removes it (worker/remove-agent.ts).
 */
export async function deleteAgent(deps: ControllerDeps, caller: Caller, namespaceId: string, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const current = await uow.agents.getForUpdate(namespaceId, id);
    if (!current) throw notFound('Agent');
    if (current.desiredState === 'running' || current.activeRevisionId !== null) throw conflict('Stop the Agent (and let the stop finish) before deleting it.');
    if (!(await uow.work.deleteForAgent(id))) throw conflict('A worker is still reconciling this Agent; retry shortly.');
    const removedAccessBindings = await uow.iam.deleteGrantsOnResource('agent', id);
    const removedRevisions = await uow.revisions.deleteForAgent(id);
    await uow.agents.delete(namespaceId, id);
    await uow.iam.deletePrincipal(current.servicePrincipalId);
    // Never deployed: no ComputeDriver was ever asked to run anything for it.
    const removal =
      removedRevisions > 0
        ? await uow.work.enqueue({
            key: `agent:${id}:remove`,
            kind: 'remove_agent',
            lane: id,
            namespaceId,
            agentId: id,
            actorId: caller.principalId,
            maxAttempts: deps.work.maxAttempts,
            deadlineAt: new Date(deps.now().getTime() + deps.work.convergenceMs),
          })
        : null;
    await recordAudit(uow, caller, {
      action: 'agents.delete',
      namespaceId,
      resource: { kind: 'agent', id },
      details: { name: current.name, removedAccessBindings, removedRevisions, computeRemovalWorkId: removal?.id ?? null },
    });
  });
}
