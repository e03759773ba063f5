import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeRevisionId, newDeployTarget, PLUGIN, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { grant, newPrincipal } from '../../../../test-support/world.ts';

/**
 * Rollouts a team can trust (beyond the specification; docs/deployments.md): a rollback is a
 * desired-state change, a deploy with nothing to change is a no-op, and the drift between the
 * Agent and its active revision can be read. Real controller, PostgreSQL, the in-process worker
 * on the scripted ComputeDriver (every revision becomes active).
 */
describe('rollouts: rollback that sticks, no-op deploys, drift', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController({ worker: { leaseMs: 2000, pollMs: 50, convergencePollMs: 50 } });
  });
  afterAll(async () => t?.close());

  const post = (target: DeployTarget, body?: unknown, key?: string) =>
    t.request({ method: 'POST', url: `${target.url}/deploy`, ...(body === undefined ? {} : { body }), ...(key ? { key } : {}) });
  const drift = async (target: DeployTarget) => (await t.request({ method: 'GET', url: `${target.url}/drift` })).body.data;
  const agent = async (target: DeployTarget) => (await t.request({ method: 'GET', url: target.url })).body.data;
  const revisionCount = async (target: DeployTarget) =>
    Number((await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM agent_revisions WHERE agent_id = $1', [target.agentId])).rows[0]!.n);
  async function deployed(target: DeployTarget, body?: unknown) {
    const res = await post(target, body);
    expect(res.status, res.raw).toBe(202);
    expect(await waitTerminal(t, target, res.body.data.id)).toMatchObject({ state: 'succeeded' });
    return res.body.data;
  }

  it('a deploy with nothing changed answers 200 with the active revision and admits nothing; --restart admits one anyway', async () => {
    const target = await newDeployTarget(t);
    const first = await deployed(target);
    const again = await post(target);
    expect(again.status, again.raw).toBe(200);
    expect(again.body.data).toEqual({ unchanged: true, revision: first });
    expect(await revisionCount(target)).toBe(1);
    expect(await activeRevisionId(t, target)).toBe(first.id);
    // Audited as a deploy that changed nothing.
    const audits = await t.database.query<{ details: any }>(`SELECT details FROM audit_events WHERE action = 'agents.deploy' AND resource_id = $1 ORDER BY seq`, [target.agentId]);
    expect(audits.rows.map((r) => r.details.unchanged ?? false)).toEqual([false, true]);
    expect(audits.rows[1]!.details).toMatchObject({ revisionId: first.id, revision: 1 });

    const restarted = await deployed(target, { restart: true });
    expect(restarted).toMatchObject({ revision: 2, plugins: first.plugins, configuration: { id: target.cfg, generation: 1 } });
    expect(await activeRevisionId(t, target)).toBe(restarted.id);
  });

  it("anything that changes the snapshot makes a real deploy: a plugin, the Configuration's generation, a stopped Agent, a newer revision than the active one", async () => {
    const target = await newDeployTarget(t);
    await deployed(target);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    expect((await deployed(target)).revision).toBe(2);
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { a: 2 } } })).status).toBe(200);
    expect((await deployed(target)).revision).toBe(3);
    // Stopped: the same snapshot is deployed again as a new revision (the Agent runs again).
    expect((await t.request({ method: 'POST', url: `${target.url}/stop` })).status).toBe(202);
    await expect.poll(() => activeRevisionId(t, target), { timeout: 20_000 }).toBeNull();
    expect((await deployed(target)).revision).toBe(4);
    // A newer revision than the active one (as a failed candidate leaves it: the pointer stays on
    // the older one) makes the next deploy real even when it equals the active snapshot.
    const older = await deployed(target, { restart: true });
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: { [PLUGIN]: { enabled: true } } } })).status).toBe(200);
    const newer = await deployed(target);
    await t.database.query('UPDATE agents SET active_revision_id = $2 WHERE id = $1', [target.agentId, older.id]);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    const replaced = await post(target);
    expect(replaced.status, replaced.raw).toBe(202);
    expect(replaced.body.data.revision).toBe(newer.revision + 1);
  });

  it("rollback sets the Agent's desired state to the older revision's, so the next plain deploy keeps it; drift shows edits until deployed", async () => {
    const plugins = { [PLUGIN]: { enabled: true } };
    const target = await newDeployTarget(t, { plugins });
    const first = await deployed(target);
    expect(await drift(target)).toEqual({
      agentId: target.agentId,
      activeRevisionId: first.id,
      activeRevision: 1,
      inSync: true,
      plugins: { added: [], removed: [], changed: [] },
      pluginApprovers: false,
      harnessAuth: false,
      configuration: null,
      computeDriver: null,
    });

    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {}, pluginApprovers: [] } })).status).toBe(200);
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { a: 2 } } })).status).toBe(200);
    expect(await drift(target)).toMatchObject({
      activeRevision: 1,
      inSync: false,
      plugins: { added: [], removed: [PLUGIN], changed: [] },
      pluginApprovers: true,
      harnessAuth: false,
      configuration: { active: { id: target.cfg, generation: 1 }, desired: { id: target.cfg, generation: 2 } },
      computeDriver: null,
    });
    const second = await deployed(target);
    expect(second).toMatchObject({ revision: 2, plugins: {}, pluginApprovers: [] });
    expect((await drift(target)).inSync).toBe(true);

    const rolledBack = await deployed(target, { fromRevision: 1 });
    expect(rolledBack).toMatchObject({ revision: 3, plugins, pluginApprovers: null, configuration: { generation: 1 } });
    // The Agent now wants revision 1's selections: what `occ agents get` and the console show.
    expect(await agent(target)).toMatchObject({ plugins, pluginApprovers: null, configurationId: target.cfg, activeRevisionId: rolledBack.id });
    // The shared Configuration is not rewritten: its newer generation is the one difference left.
    expect(await drift(target)).toMatchObject({
      inSync: false,
      plugins: { added: [], removed: [], changed: [] },
      pluginApprovers: false,
      configuration: { active: { generation: 1 }, desired: { generation: 2 } },
    });
    // The next plain deploy deploys the rolled-back selections (with today's Configuration), not revision 2's.
    const next = await deployed(target);
    expect(next).toMatchObject({ revision: 4, plugins, pluginApprovers: null, configuration: { generation: 2 } });

    // Rolling back to what is active already only restores the desired state: nothing is admitted.
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    const toActive = await post(target, { fromRevision: next.id });
    expect(toActive.status, toActive.raw).toBe(200);
    expect(toActive.body.data).toEqual({ unchanged: true, revision: next });
    expect((await agent(target)).plugins).toEqual(plugins);
    expect(await revisionCount(target)).toBe(4);
  });

  it("a rollback to a revision whose Configuration was deleted since restores the selections and keeps today's binding", async () => {
    const target = await newDeployTarget(t);
    const first = await deployed(target);
    const other = await t.request({ method: 'POST', url: `/namespaces/${target.ns}/configurations`, body: { name: `other-${target.agentId.slice(-8)}`, values: { b: 1 } } });
    expect(other.status, other.raw).toBe(201);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { configurationId: other.body.data.id, plugins: {} } })).status).toBe(200);
    await deployed(target);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${target.ns}/configurations/${target.cfg}` })).status).toBe(204);
    const rolledBack = await deployed(target, { fromRevision: first.id });
    expect(rolledBack).toMatchObject({ revision: 3, plugins: first.plugins, configuration: { id: target.cfg, generation: 1 } });
    expect(await agent(target)).toMatchObject({ plugins: first.plugins, configurationId: other.body.data.id });
    expect(await drift(target)).toMatchObject({
      plugins: { added: [], removed: [], changed: [] },
      configuration: { active: { id: target.cfg }, desired: { id: other.body.data.id } },
    });
  });

  it('a rollback changes the Agent as an edit does: `deploy` alone is not enough (403, nothing written)', async () => {
    const target = await newDeployTarget(t);
    const first = await deployed(target);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    await deployed(target);
    const deployer = await newPrincipal(t);
    await grant(
      t,
      deployer.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: target.ns },
    );
    const refused = await post(target, { fromRevision: first.id }, deployer.key);
    expect(refused.status, refused.raw).toBe(403);
    expect(await revisionCount(target)).toBe(2);
    expect((await agent(target)).plugins).toEqual({});
    // A plain deploy (nothing changed) is still theirs to make.
    expect((await post(target, undefined, deployer.key)).status).toBe(200);
  });
});
