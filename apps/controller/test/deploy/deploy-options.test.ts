import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openclawCuratedCatalog, translateOpenClawPolicy, GOVERNANCE_TOOLS } from '@occ/policy';
import { composeController, type ControllerConfig } from '../../src/composition/compose.ts';
import { createOpenClawCuratedDriver } from '../../src/drivers/plugin/openclaw-curated/index.ts';
import { newDeployTarget, deploy, admit, PLUGIN, storePluginsUnchecked, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/** A key the curated catalog does not offer (the catalog's id is `@openclaw/nostr`). */
const UNCATALOGUED = 'openclaw:nostr';

/** `POST …/deploy` with a body (beyond the specification): `dryRun` and `fromRevision` (rollback as a new revision). */
describe('deploy options: dry run and rollback', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
    // The test controller rebuilds each PluginDriver around its scripted discovery; give the
    // OpenClaw one back the curated driver's translation, as production composes it.
    const openclaw = t.controller.deps.pluginDrivers.openclaw!;
    t.controller.deps.pluginDrivers.openclaw = { ...openclaw, previewNativeConfiguration: createOpenClawCuratedDriver().previewNativeConfiguration! };
  });
  afterAll(async () => t?.close());

  const post = (target: DeployTarget, body: unknown, key?: string) => t.request({ method: 'POST', url: `${target.url}/deploy`, body, ...(key ? { key } : {}) });
  const count = async (sql: string, params: unknown[]) => Number((await t.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n);
  async function written(agentId: string) {
    const { rows } = await t.database.query<{ n: number }>('SELECT last_revision_number AS n FROM agents WHERE id = $1', [agentId]);
    return {
      revisions: await count('agent_revisions WHERE agent_id = $1', [agentId]),
      work: await count('work_items WHERE agent_id = $1', [agentId]),
      audits: await count('audit_events WHERE resource_id = $1 AND action NOT IN ($2)', [agentId, 'agents.create']),
      lastNumber: rows[0]!.n,
    };
  }

  async function withSibling(config: Partial<ControllerConfig>, fn: (post: (url: string, body: unknown) => Promise<{ status: number; body: any }>) => Promise<void>) {
    const sibling = await composeController({ database: t.database, secretKey: randomBytes(32), logger: false, worker: false, ...config });
    try {
      await fn(async (url, body) => {
        const res = await sibling.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        return { status: res.statusCode, body: JSON.parse(res.body) };
      });
    } finally {
      await sibling.close();
    }
  }

  it('the OpenAPI document shows the optional body and every answer (202 deploy, 200 dry run or nothing changed)', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', key: null })).body;
    const op = doc.paths['/namespaces/{ns}/agents/{id}/deploy'].post;
    expect(op.requestBody.required).toBe(false);
    const body = op.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(['dryRun', 'fromRevision', 'restart']);
    expect(body.additionalProperties).toBe(false);
    expect(body.required ?? []).toEqual([]);
    expect(op.responses['202'].content['application/json'].schema.properties.data.properties.id).toBeDefined();
    const answers = op.responses['200'].content['application/json'].schema.properties.data.anyOf;
    expect(answers.map((answer: { properties: object }) => Object.keys(answer.properties).sort())).toEqual([
      ['dryRun', 'nativeConfiguration', 'revision'],
      ['revision', 'unchanged'],
    ]);
  });

  it('an absent, empty or `{}` body is a plain deploy (202)', async () => {
    const target = await newDeployTarget(t);
    expect((await deploy(t, target)).status).toBe(202);
    const emptyJson = await t.request({ method: 'POST', url: `${target.url}/deploy`, body: '' });
    expect(emptyJson.status, emptyJson.raw).toBe(202);
    const emptyObject = await post(target, {});
    expect(emptyObject.status, emptyObject.raw).toBe(202);
    expect(emptyObject.body.data.revision).toBe(3);
    const falseDryRun = await post(target, { dryRun: false });
    expect(falseDryRun.status, falseDryRun.raw).toBe(202);
  });

  it('the body is closed: anything else → 400 naming the field', async () => {
    const target = await newDeployTarget(t);
    const cases: [unknown, string, string][] = [
      [{ dryrun: true }, '/dryrun', 'UNKNOWN_FIELD'],
      [{ dryRun: 'yes' }, '/dryRun', 'INVALID_TYPE'],
      [{ fromRevision: 0 }, '/fromRevision', 'INVALID_VALUE'],
      [{ fromRevision: 1.5 }, '/fromRevision', 'INVALID_VALUE'],
      [{ fromRevision: 'not-a-revision' }, '/fromRevision', 'INVALID_FORMAT'],
      [{ fromRevision: null }, '/fromRevision', 'INVALID_VALUE'],
    ];
    for (const [body, path] of cases) {
      const res = await post(target, body);
      expect(res.status, `${JSON.stringify(body)} ${res.raw}`).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await post(target, [])).status).toBe(400);
    expect(await written(target.agentId)).toEqual({ revisions: 0, work: 0, audits: 0, lastNumber: 0 });
  });

  it('dry run: 200 with the revision it would admit (no id, no number) and the translated plugins/tools; nothing written', async () => {
    const plugins = { '@openclaw/nostr': { enabled: true }, 'file-transfer': { enabled: true, tools: { dir_list: { enabled: false } } } };
    const values = { model: 'm1', tools: { profile: 'coding' } };
    const target = await newDeployTarget(t, { plugins, values });
    const res = await post(target, { dryRun: true });
    expect(res.status, res.raw).toBe(200);
    const { revision, nativeConfiguration, dryRun } = res.body.data;
    expect(dryRun).toBe(true);
    expect(revision).toMatchObject({
      id: null,
      revision: null,
      agentId: target.agentId,
      harness: 'openclaw',
      plugins,
      pluginDriverId: 'openclaw-curated',
      computeDriverId: 'scripted',
      configuration: { id: target.cfg, generation: 1, withheld: false, values, secretBindings: {} },
    });
    expect(nativeConfiguration.status, JSON.stringify(nativeConfiguration)).toBe('translated');
    // Exactly what the runtime's translator (packages/policy) writes over the Configuration's values.
    // (The stored map's key order, as the runtime's manifest carries it: jsonb orders keys.)
    const runtime = translateOpenClawPolicy({ catalog: openclawCuratedCatalog(), selections: revision.plugins, baseConfig: revision.configuration.values, governance: true });
    expect(nativeConfiguration).toEqual({
      status: 'translated',
      harness: 'openclaw',
      plugins: runtime.config.plugins,
      tools: runtime.config.tools,
      unselectedDisabled: runtime.unselectedDisabled,
    });
    expect(nativeConfiguration.plugins.entries).toMatchObject({ nostr: { enabled: true }, 'file-transfer': { enabled: true } });
    expect(nativeConfiguration.tools.profile).toBe('coding');
    // The governance tools are denied (the Configuration grants none of them).
    expect(nativeConfiguration.tools.deny).toEqual(expect.arrayContaining([...GOVERNANCE_TOOLS]));
    expect(await written(target.agentId)).toEqual({ revisions: 0, work: 0, audits: 0, lastNumber: 0 });
    expect((await t.request({ method: 'GET', url: target.url })).body.data.desiredState).toBe('stopped');
    // No number was spent: the real deploy is revision 1.
    expect((await admit(t, target)).revision).toBe(1);
  });

  it('dry run: a selection the translator refuses is reported (pointers and codes), still nothing written', async () => {
    // Admission accepts the key (static rules); the pinned runtime's catalog has no such plugin.
    // Saving refuses it now, so it is an Agent saved before that rule.
    const target = await newDeployTarget(t);
    await storePluginsUnchecked(t, target, { [UNCATALOGUED]: { enabled: true } });
    const res = await post(target, { dryRun: true });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.nativeConfiguration).toEqual({ status: 'refused', harness: 'openclaw', violations: [{ path: `/plugins/${UNCATALOGUED}`, code: 'UNSUPPORTED_VALUE' }] });
    expect(await written(target.agentId)).toEqual({ revisions: 0, work: 0, audits: 0, lastNumber: 0 });
  });

  it('dry run runs every admission check: Configuration access, Secret grants of caller and Agent, the drivers', async () => {
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'dry-run-secret-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { API_TOKEN: { secretId: secret.id } } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'openclaw',
      plugins: { [PLUGIN]: { enabled: true } },
    });
    const target: DeployTarget = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
      ],
      { namespaceId: ns },
    );

    const noConfiguration = await post(target, { dryRun: true }, p.key);
    expect([403, 404], noConfiguration.raw).toContain(noConfiguration.status);
    expect(noConfiguration.body.error.details).toEqual([{ path: '/configurationId', code: 'INVALID_VALUE' }]);
    await grant(t, p.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: ns });
    const noSecret = await post(target, { dryRun: true }, p.key);
    expect(noSecret.body.error.details).toEqual([{ path: '/configuration/secretBindings/API_TOKEN/secretId', code: 'INVALID_VALUE' }]);
    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const agentLacks = await post(target, { dryRun: true }, p.key);
    expect(agentLacks.status, agentLacks.raw).toBe(403);
    expect(agentLacks.body.error.message).toContain('secret:operate');
    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const allowed = await post(target, { dryRun: true }, p.key);
    expect(allowed.status, allowed.raw).toBe(200);
    expect(allowed.body.data.revision.configuration.secretBindings).toEqual({ API_TOKEN: { secretId: secret.id } });
    // Agent read alone (no deploy) is not enough for a rehearsal of a deploy.
    const reader = await newPrincipal(t);
    await grant(
      t,
      reader.id,
      [
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: ns },
    );
    expect((await post(target, { dryRun: true }, reader.key)).status).toBe(403);

    await withSibling({ compute: createScriptedCompute({ rejectRevision: () => 'this target cannot run plugin maps' }) }, async (send) => {
      expect((await send(`${target.url}/deploy`, { dryRun: true })).status).toBe(400);
    });
    await withSibling({ pluginDrivers: { openclaw: 'none' }, compute: createScriptedCompute() }, async (send) => {
      expect((await send(`${target.url}/deploy`, { dryRun: true })).status).toBe(501);
    });
    await withSibling({}, async (send) => {
      expect((await send(`${target.url}/deploy`, { dryRun: true })).status).toBe(501);
    });
    const bad = { [PLUGIN]: { enabled: true, toolDefaults: { approval: 'all_actions' } } };
    await t.database.query('UPDATE agents SET plugins = $2::jsonb WHERE id = $1', [target.agentId, JSON.stringify(bad)]);
    expect((await post(target, { dryRun: true })).status).toBe(400);
    expect(await written(target.agentId)).toEqual({ revisions: 0, work: 0, audits: 0, lastNumber: 0 });
    const everything = JSON.stringify([noConfiguration, noSecret, agentLacks, allowed].map((r) => r.raw));
    expect(everything).not.toContain('dry-run-secret-value');
  });

  it('dry run of a Codex Agent: the native tables are resolved at startup, so none are shown', async () => {
    const ns = t.defaultNamespaceId;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'codex' });
    const res = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent.id}/deploy`, body: { dryRun: true } });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.nativeConfiguration).toEqual({ status: 'unavailable', harness: 'codex', reason: 'RESOLVED_AT_STARTUP' });
    expect(res.body.data.revision).toMatchObject({ id: null, revision: null, harness: 'codex', pluginDriverId: 'codex-hosted' });
  });

  it('rollback: an older revision (by number or id) is admitted anew as the next number, revalidated, audited as a rollback', async () => {
    const plugins = { [PLUGIN]: { enabled: true } };
    const target = await newDeployTarget(t, { plugins, values: { model: 'm1' } });
    const first = await admit(t, target);
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { model: 'm2' } } })).status).toBe(200);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
    const second = await admit(t, target);
    expect(second).toMatchObject({ revision: 2, plugins: {}, configuration: { generation: 2, values: { model: 'm2' } } });

    const byNumber = await post(target, { fromRevision: 1 });
    expect(byNumber.status, byNumber.raw).toBe(202);
    expect(byNumber.body.data).toMatchObject({ revision: 3, plugins, configuration: { id: target.cfg, generation: 1, withheld: false, values: { model: 'm1' } } });
    expect(byNumber.body.data.id).not.toBe(first.id);
    const byId = await post(target, { fromRevision: second.id });
    expect(byId.status, byId.raw).toBe(202);
    expect(byId.body.data).toMatchObject({ revision: 4, plugins: {}, configuration: { generation: 2, values: { model: 'm2' } } });
    // History is append-only: the older revisions are unchanged and still listed.
    expect((await t.request({ method: 'GET', url: `${target.url}/revisions/${first.id}` })).body.data).toEqual(first);
    const listed = await t.request({ method: 'GET', url: `${target.url}/revisions` });
    expect(listed.body.data.items.map((r: { revision: number }) => r.revision)).toEqual([4, 3, 2, 1]);
    // A rollback is a desired-state change: the Agent now wants the last rolled-back snapshot (revision 2's).
    expect((await t.request({ method: 'GET', url: target.url })).body.data).toMatchObject({ plugins: {}, configurationId: target.cfg });

    const audits = await t.database.query<{ details: any }>(`SELECT details FROM audit_events WHERE action = 'agents.deploy' AND resource_id = $1 ORDER BY seq`, [target.agentId]);
    expect(audits.rows.map((r) => r.details.rollbackFrom ?? null)).toEqual([null, null, { revisionId: first.id, revision: 1 }, { revisionId: second.id, revision: 2 }]);
  });

  it('rollback: an unknown revision, or one of another Agent, → 404 at /fromRevision; nothing written', async () => {
    const target = await newDeployTarget(t);
    const other = await newDeployTarget(t);
    await admit(t, target);
    const othersRevision = await admit(t, other);
    for (const fromRevision of [2, 99, othersRevision.id, 'rev_00000000-0000-4000-8000-000000000000']) {
      const res = await post(target, { fromRevision });
      expect(res.status, `${fromRevision} ${res.raw}`).toBe(404);
      expect(res.body.error.details).toEqual([{ path: '/fromRevision', code: 'INVALID_VALUE' }]);
      expect((await post(target, { fromRevision, dryRun: true })).status).toBe(404);
    }
    expect(await written(target.agentId)).toEqual({ revisions: 1, work: 1, audits: 1, lastNumber: 1 });
  });

  it("rollback is revalidated against today's grants and drivers: the same 4xx a deploy gives, nothing written", async () => {
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'rollback-secret-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { API_TOKEN: { secretId: secret.id } } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'openclaw',
      plugins: { [PLUGIN]: { enabled: true } },
    });
    const target: DeployTarget = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    const agentGrant = await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const first = await admit(t, target);
    // Today the Configuration binds no Secret, and the Agent's grant on the old one is revoked.
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { secretBindings: {} } })).status).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/iam/access-bindings/${agentGrant}` })).status).toBe(204);
    expect((await admit(t, target)).revision).toBe(2);

    for (const body of [{ fromRevision: 1 }, { fromRevision: first.id, dryRun: true }]) {
      const refused = await post(target, body);
      expect(refused.status, refused.raw).toBe(403);
      expect(refused.body.error.message).toContain('secret:operate');
      expect(refused.raw).not.toContain('rollback-secret-value');
    }
    await withSibling({ pluginDrivers: { openclaw: 'none' }, compute: createScriptedCompute() }, async (send) => {
      expect((await send(`${target.url}/deploy`, { fromRevision: 1 })).status).toBe(501);
    });
    expect(await written(target.agentId)).toEqual({ revisions: 2, work: 2, audits: 2, lastNumber: 2 });

    // With the grant back, the rollback (and its dry run) pass; the dry run shows the old snapshot.
    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const rehearsal = await post(target, { fromRevision: 1, dryRun: true });
    expect(rehearsal.status, rehearsal.raw).toBe(200);
    expect(rehearsal.body.data.revision).toMatchObject({ id: null, revision: null, configuration: { secretBindings: { API_TOKEN: { secretId: secret.id } } } });
    const rolled = await post(target, { fromRevision: 1 });
    expect(rolled.status, rolled.raw).toBe(202);
    expect(rolled.body.data).toMatchObject({ revision: 3, configuration: { secretBindings: { API_TOKEN: { secretId: secret.id } } } });
    const audits = await t.database.query<{ details: unknown }>('SELECT details FROM audit_events WHERE resource_id = $1', [target.agentId]);
    expect(JSON.stringify(audits.rows) + rolled.raw + rehearsal.raw).not.toContain('rollback-secret-value');
  });
});
