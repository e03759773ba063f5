import { randomBytes } from 'node:crypto';
import { routeTable } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeController, type ControllerConfig } from '../../src/composition/compose.ts';
import { newDeployTarget, deploy, admit, workRow, PLUGIN, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

describe('deploy admission', () => {
  let t: TestController;
  beforeAll(async () => {
    // No worker: admission alone is under test, so every work item stays queued.
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  const count = async (sql: string, params: unknown[]) => Number((await t.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n);
  const revisionCount = (agentId: string) => count('agent_revisions WHERE agent_id = $1', [agentId]);
  const workCount = (agentId: string) => count('work_items WHERE agent_id = $1', [agentId]);
  const deployAudits = (agentId: string) => count(`audit_events WHERE action = 'agents.deploy' AND outcome = 'success' AND resource_id = $1`, [agentId]);
  /** Nothing of a refused deploy may be written: no revision, no work item, no audit event, no number spent. */
  async function expectNothingWritten(target: DeployTarget, before: { revisions: number; lastNumber: number }) {
    expect(await revisionCount(target.agentId)).toBe(before.revisions);
    expect(await workCount(target.agentId)).toBe(before.revisions);
    expect(await deployAudits(target.agentId)).toBe(before.revisions);
    const { rows } = await t.database.query<{ n: number }>('SELECT last_revision_number AS n FROM agents WHERE id = $1', [target.agentId]);
    expect(rows[0]!.n).toBe(before.lastNumber);
  }

  /** Another controller on the same database (other drivers), answering as the administrator. */
  async function withSibling(config: Partial<ControllerConfig>, fn: (inject: (url: string) => Promise<{ status: number; body: any }>) => Promise<void>) {
    const sibling = await composeController({ database: t.database, secretKey: randomBytes(32), logger: false, worker: false, ...config });
    try {
      await fn(async (url) => {
        const res = await sibling.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminKey}` } });
        return { status: res.statusCode, body: JSON.parse(res.body) };
      });
    } finally {
      await sibling.close();
    }
  }

  it('[A-1][O-2][A-2] answers 202 with a revision holding the policy-only map, the driver ids and a configuration snapshot', async () => {
    const plugins = { [PLUGIN]: { enabled: true, tools: { 'nostr.post': { enabled: false } } }, 'openclaw:webhooks': { enabled: false, toolDefaults: { approval: 'none' } } };
    const target = await newDeployTarget(t, { plugins, values: { model: 'm1', nested: { n: 1 } } });
    const res = await deploy(t, target);
    expect(res.status, res.raw).toBe(202);
    const rev = res.body.data;
    expect(rev).toMatchObject({
      revision: 1,
      agentId: target.agentId,
      namespaceId: target.ns,
      harness: 'openclaw',
      harnessAuth: null,
      pluginDriverId: 'openclaw-curated',
      computeDriverId: 'scripted',
      pluginApprovers: null,
      servicePrincipalId: target.servicePrincipalId,
      configuration: { id: target.cfg, generation: 1, values: { model: 'm1', nested: { n: 1 } }, secretBindings: {} },
    });
    expect(rev.id).toMatch(/^rev_/);
    // Policy only: exactly the Agent's map, nothing resolved (no versions, tools or app mapping added).
    expect(rev.plugins).toEqual(plugins);
    expect(JSON.stringify(rev)).not.toMatch(/"version"|"integrity"|"apps"/);

    // The snapshot is frozen: later edits of the Configuration and the Agent do not reach it.
    const cfgPatch = await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { model: 'm2' } } });
    expect(cfgPatch.status, cfgPatch.raw).toBe(200);
    expect(cfgPatch.body.data.generation).toBe(2);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    const stored = await t.request({ method: 'GET', url: `${target.url}/revisions/${rev.id}` });
    expect(stored.status).toBe(200);
    expect(stored.body.data).toEqual(rev);

    // One audit event naming the revision, from the deploying principal.
    const audits = await t.database.query<{ actor_id: string; details: any }>(`SELECT actor_id, details FROM audit_events WHERE action = 'agents.deploy' AND resource_id = $1`, [
      target.agentId,
    ]);
    expect(audits.rows).toHaveLength(1);
    expect(audits.rows[0]!.details).toMatchObject({ revisionId: rev.id, revision: 1 });
    expect(audits.rows[0]!.actor_id).toBe(rev.actorId);
    // The work item was queued with it, and the Agent wants to run; nothing is active yet.
    expect(await workRow(t, rev.id)).toMatchObject({ kind: 'reconcile_revision', state: 'queued', revision_id: rev.id, lane: target.agentId, attempts: 0, actor_id: rev.actorId });
    expect((await t.request({ method: 'GET', url: target.url })).body.data).toMatchObject({ desiredState: 'running', activeRevisionId: null });

    // A second deploy snapshots the current state as revision 2.
    const second = await admit(t, target);
    expect(second).toMatchObject({ revision: 2, plugins: {}, configuration: { generation: 2, values: { model: 'm2' } } });
  });

  it('[A-1][V-4] re-validates the stored plugin map with the current PluginDriver: a rejected map → 400, nothing written', async () => {
    const target = await newDeployTarget(t);
    // A map the openclaw-curated driver rejects, written behind the API's back.
    const bad = { [PLUGIN]: { enabled: true, toolDefaults: { approval: 'all_actions' } } };
    await t.database.query('UPDATE agents SET plugins = $2::jsonb WHERE id = $1', [target.agentId, JSON.stringify(bad)]);
    const res = await deploy(t, target);
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^\/plugins\/openclaw:@openclaw~1nostr\/toolDefaults/) })]),
    );
    await expectNothingWritten(target, { revisions: 0, lastNumber: 0 });
    expect((await t.request({ method: 'GET', url: target.url })).body.data.desiredState).toBe('stopped');
  });

  it('[A-1][V-5] with no PluginDriver for the harness a non-empty map is refused (501); without a ComputeDriver deploy → 501', async () => {
    const target = await newDeployTarget(t);
    await withSibling({ pluginDrivers: { openclaw: 'none' }, compute: createScriptedCompute() }, async (post) => {
      const res = await post(`${target.url}/deploy`);
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('NOT_IMPLEMENTED');
    });
    await withSibling({}, async (post) => {
      const res = await post(`${target.url}/deploy`);
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('NOT_IMPLEMENTED');
    });
    await expectNothingWritten(target, { revisions: 0, lastNumber: 0 });
    // The same Agent deploys on a controller that has both drivers, as revision 1.
    expect((await admit(t, target)).revision).toBe(1);
  });

  it('[P-1] a revision the ComputeDriver statically rejects is refused at admission and numbers no revision', async () => {
    const target = await newDeployTarget(t);
    await admit(t, target);
    await withSibling({ compute: createScriptedCompute({ rejectRevision: () => 'this target cannot run plugin maps' }) }, async (post) => {
      const res = await post(`${target.url}/deploy`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    });
    await expectNothingWritten(target, { revisions: 1, lastNumber: 1 });
    expect((await admit(t, target)).revision).toBe(2);
  });

  it('[A-1] the Configuration is re-checked: without configuration:read the deploy is refused and nothing written', async () => {
    const target = await newDeployTarget(t);
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
      ],
      { namespaceId: target.ns },
    );
    const cfgRead = await grant(t, p.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: target.ns, resource: { kind: 'configuration', id: target.cfg } });
    const allowed = await deploy(t, target, p.key);
    expect(allowed.status, allowed.raw).toBe(202);
    expect(allowed.body.data.actorId).toBe(p.id);

    expect((await t.request({ method: 'DELETE', url: `/iam/access-bindings/${cfgRead}` })).status).toBe(204);
    const refused = await deploy(t, target, p.key);
    // Refused: the Configuration is now invisible to the caller, so it is hidden (404) or forbidden (403).
    expect([403, 404], refused.raw).toContain(refused.status);
    expect(refused.body.error.details).toEqual([{ path: '/configurationId', code: 'INVALID_VALUE' }]);
    await expectNothingWritten(target, { revisions: 1, lastNumber: 1 });
  });

  it("[A-1] harness auth: the caller and the Agent's own principal both need secret:operate on the bound Secret", async () => {
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'codex-pat-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: secret.id },
    });
    const target: DeployTarget = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: ns },
    );

    const callerLacks = await deploy(t, target, p.key);
    expect(callerLacks.status, callerLacks.raw).toBe(403);
    expect(callerLacks.body.error.details).toEqual([{ path: '/harnessAuth/secretId', code: 'INVALID_VALUE' }]);
    expect(callerLacks.raw).not.toContain('codex-pat-value');
    await expectNothingWritten(target, { revisions: 0, lastNumber: 0 });

    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const agentLacks = await deploy(t, target, p.key);
    expect(agentLacks.status, agentLacks.raw).toBe(403);
    expect(agentLacks.body.error.message).toContain('secret:operate');
    expect(agentLacks.body.error.message).toContain(secret.id);
    await expectNothingWritten(target, { revisions: 0, lastNumber: 0 });

    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const allowed = await deploy(t, target, p.key);
    expect(allowed.status, allowed.raw).toBe(202);
    expect(allowed.body.data).toMatchObject({ revision: 1, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: secret.id }, pluginDriverId: 'codex-hosted' });
    expect(allowed.raw).not.toContain('codex-pat-value');
  });

  it('[A-1] Configuration Secret bindings are re-checked for the caller and the Agent; the revision keeps references only', async () => {
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'bound-secret-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { API_TOKEN: { secretId: secret.id } } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const target: DeployTarget = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: ns },
    );

    const callerLacks = await deploy(t, target, p.key);
    expect([403, 404], callerLacks.raw).toContain(callerLacks.status);
    expect(callerLacks.body.error.details).toEqual([{ path: '/configuration/secretBindings/API_TOKEN/secretId', code: 'INVALID_VALUE' }]);
    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const agentLacks = await deploy(t, target, p.key);
    expect(agentLacks.status, agentLacks.raw).toBe(403);
    expect(agentLacks.body.error.message).toContain('secret:operate');
    await expectNothingWritten(target, { revisions: 0, lastNumber: 0 });

    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const allowed = await deploy(t, target, p.key);
    expect(allowed.status, allowed.raw).toBe(202);
    expect(allowed.body.data.configuration.secretBindings).toEqual({ API_TOKEN: { secretId: secret.id } });
    expect(allowed.raw).not.toContain('bound-secret-value');
    const spec = await t.database.query<{ spec: unknown }>('SELECT spec FROM agent_revisions WHERE id = $1', [allowed.body.data.id]);
    expect(JSON.stringify(spec.rows[0]!.spec)).not.toContain('bound-secret-value');
  });

  it('[A-1] revisions are immutable: the database refuses UPDATE and no route changes one', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    await expect(t.database.query(`UPDATE agent_revisions SET spec = jsonb_set(spec, '{plugins}', '{}'::jsonb) WHERE id = $1`, [rev.id])).rejects.toThrow(/immutable/);
    await expect(t.database.query('UPDATE agent_revisions SET revision_number = 99 WHERE id = $1', [rev.id])).rejects.toThrow(/immutable/);
    await expect(t.database.query('UPDATE agent_revisions SET actor_id = $2 WHERE id = $1', [rev.id, target.servicePrincipalId])).rejects.toThrow(/immutable/);

    const writes = routeTable.filter((r) => /\/revisions(\/|$)/.test(r.path) && r.method !== 'GET');
    expect(writes).toEqual([]);
    for (const method of ['PATCH', 'PUT', 'POST', 'DELETE'] as const) {
      const res = await t.request({ method, url: `${target.url}/revisions/${rev.id}`, body: { plugins: {} } });
      expect(res.status, `${method} revision`).toBeGreaterThanOrEqual(400);
    }
    expect((await t.request({ method: 'GET', url: `${target.url}/revisions/${rev.id}` })).body.data).toEqual(rev);
  });
});
