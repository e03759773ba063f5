import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexHostedRules, openclawCuratedRules } from '@occ/policy';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

// Keys with `/` make the JSON pointers of the details worth checking: `/` is escaped as `~1`.
// OpenClaw keys are ones the curated catalog offers: an Agent is saved only with those.
const OC = 'openclaw:@openclaw/discord';
const OC_PTR = '/plugins/openclaw:@openclaw~1discord';
const CX = 'codex:linear@openai-curated';
const CX_PTR = `/plugins/${CX}`;
const APPROVER = { channel: 'slack', id: 'U123' };

type Detail = { path: string; code: string };

async function setupNamespace(t: TestController) {
  const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
  const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id as string;
  return { ns, cfg };
}

describe('Agent plugin maps and policy', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  async function newAgent(harness: 'openclaw' | 'codex', extra: Record<string, unknown> = {}) {
    const { ns, cfg } = await setupNamespace(t);
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness, ...extra });
    return { ns, cfg, agent, url: `/namespaces/${ns}/agents/${agent.id}` };
  }
  const auditCount = async () => Number((await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0]!.n);

  /** PATCHes plugins onto a fresh Agent of `harness` and expects a 400 whose details include `expected`. */
  async function expectRejected(harness: 'openclaw' | 'codex', body: Record<string, unknown>, expected: Detail[]) {
    const { url } = await newAgent(harness);
    const res = await t.request({ method: 'PATCH', url, body });
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual(expect.arrayContaining(expected));
    return res;
  }
  async function expectAccepted(harness: 'openclaw' | 'codex', body: Record<string, unknown>) {
    const { url } = await newAgent(harness);
    const res = await t.request({ method: 'PATCH', url, body });
    expect(res.status, res.raw).toBe(200);
    return res.body.data;
  }

  it('[V-8] plugins: omitted preserves, {} clears, a non-empty map replaces whole', async () => {
    const initial = { [OC]: { enabled: true }, 'openclaw:webhooks': { enabled: false, toolDefaults: { approval: 'none' } } };
    const { url } = await newAgent('openclaw', { plugins: initial });
    const renamed = await t.request({ method: 'PATCH', url, body: { name: uniqueName('renamed') } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.plugins).toEqual(initial);

    const replacement = { 'openclaw:browser': { enabled: true, tools: { 'web.search': { enabled: false } } } };
    const replaced = await t.request({ method: 'PATCH', url, body: { plugins: replacement } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.plugins).toEqual(replacement);
    expect(Object.keys((await t.request({ method: 'GET', url })).body.data.plugins)).toEqual(['openclaw:browser']);

    const cleared = await t.request({ method: 'PATCH', url, body: { plugins: {} } });
    expect(cleared.body.data.plugins).toEqual({});
    expect((await t.request({ method: 'GET', url })).body.data.plugins).toEqual({});
  });

  it('[V-8] pluginApprovers: omitted preserves, [] is stored as [], null clears', async () => {
    const { url, agent } = await newAgent('openclaw', { pluginApprovers: [APPROVER] });
    expect(agent.pluginApprovers).toEqual([APPROVER]);
    expect((await t.request({ method: 'PATCH', url, body: { plugins: { [OC]: { enabled: true } } } })).body.data.pluginApprovers).toEqual([APPROVER]);
    const nobody = await t.request({ method: 'PATCH', url, body: { pluginApprovers: [] } });
    expect(nobody.body.data.pluginApprovers).toEqual([]);
    expect(nobody.body.data.plugins).toEqual({ [OC]: { enabled: true } });
    const raw = async () => (await t.database.query<{ a: unknown }>('SELECT plugin_approvers AS a FROM agents WHERE id = $1', [agent.id])).rows[0]!.a;
    expect(await raw()).toEqual([]);
    const cleared = await t.request({ method: 'PATCH', url, body: { pluginApprovers: null } });
    expect(cleared.body.data.pluginApprovers).toBeNull();
    expect(await raw()).toBeNull();
  });

  it('[V-5] openclaw-curated refuses all_actions, reviewers and driverPolicy, naming each field', async () => {
    await expectRejected('openclaw', { plugins: { [OC]: { enabled: true, toolDefaults: { approval: 'all_actions' } } } }, [
      { path: `${OC_PTR}/toolDefaults/approval`, code: 'UNSUPPORTED_VALUE' },
    ]);
    await expectRejected('openclaw', { plugins: { [OC]: { enabled: true, tools: { 'weather/get': { approval: 'write_actions' } } } } }, [
      { path: `${OC_PTR}/tools/weather~1get/approval`, code: 'UNSUPPORTED_VALUE' },
    ]);
    for (const reviewer of ['human', 'auto']) {
      await expectRejected('openclaw', { plugins: { [OC]: { enabled: true, toolDefaults: { reviewer } } } }, [
        { path: `${OC_PTR}/toolDefaults/reviewer`, code: 'UNSUPPORTED_FIELD' },
      ]);
      await expectRejected('openclaw', { plugins: { [OC]: { enabled: true, tools: { get: { reviewer } } } } }, [
        { path: `${OC_PTR}/tools/get/reviewer`, code: 'UNSUPPORTED_FIELD' },
      ]);
    }
    for (const driverPolicy of [{}, { destructiveEnabled: true }]) {
      await expectRejected('openclaw', { plugins: { [OC]: { enabled: true, driverPolicy } } }, [{ path: `${OC_PTR}/driverPolicy`, code: 'UNSUPPORTED_FIELD' }]);
    }
    const ok = await expectAccepted('openclaw', {
      plugins: { [OC]: { enabled: true, approvers: [APPROVER], toolDefaults: { approval: 'provider_default' }, tools: { get: { approval: 'none', approvers: [] } } } },
    });
    expect(ok.plugins[OC].tools.get).toEqual({ approval: 'none', approvers: [] });
  });

  it('[V-5] codex-hosted accepts all four approval modes and toolDefaults reviewers', async () => {
    for (const approval of ['provider_default', 'all_actions', 'write_actions', 'none']) {
      const plugins = { [CX]: { enabled: true, toolDefaults: { approval }, tools: { create_issue: { approval } } } };
      expect((await expectAccepted('codex', { plugins })).plugins).toEqual(plugins);
    }
    for (const reviewer of ['human', 'auto']) {
      const plugins = { [CX]: { enabled: true, toolDefaults: { approval: 'all_actions', reviewer } } };
      expect((await expectAccepted('codex', { plugins, pluginApprovers: [APPROVER] })).plugins).toEqual(plugins);
    }
    const destructive = { [CX]: { enabled: true, driverPolicy: { destructiveEnabled: false }, toolDefaults: { approval: 'none' } } };
    expect((await expectAccepted('codex', { plugins: destructive })).plugins).toEqual(destructive);
  });

  it('[V-5] codex-hosted refuses tool reviewers, plugin/tool approvers, unknown driverPolicy keys and enabled + destructiveEnabled', async () => {
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, tools: { create_issue: { reviewer: 'human' } } } } }, [
      { path: `${CX_PTR}/tools/create_issue/reviewer`, code: 'UNSUPPORTED_FIELD' },
    ]);
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, approvers: [APPROVER] } } }, [{ path: `${CX_PTR}/approvers`, code: 'UNSUPPORTED_FIELD' }]);
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, tools: { create_issue: { approvers: [] } } } } }, [
      { path: `${CX_PTR}/tools/create_issue/approvers`, code: 'UNSUPPORTED_FIELD' },
    ]);
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, driverPolicy: { allowEverything: true } } } }, [
      { path: `${CX_PTR}/driverPolicy/allowEverything`, code: 'UNSUPPORTED_FIELD' },
    ]);
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, driverPolicy: { destructiveEnabled: 'yes' } } } }, [
      { path: `${CX_PTR}/driverPolicy/destructiveEnabled`, code: 'INVALID_VALUE' },
    ]);
    await expectRejected('codex', { plugins: { [CX]: { enabled: true, toolDefaults: { enabled: true }, driverPolicy: { destructiveEnabled: true } } } }, [
      { path: `${CX_PTR}/toolDefaults/enabled`, code: 'INVALID_COMBINATION' },
    ]);
  });

  it('[V-5] refuses two keys naming the same native plugin (DUPLICATE_PLUGIN)', async () => {
    const cx = await expectRejected('codex', { plugins: { [CX]: { enabled: true }, 'linear@openai-curated': { enabled: false } } }, []);
    expect(cx.body.error.details).toHaveLength(1);
    expect(cx.body.error.details[0].code).toBe('DUPLICATE_PLUGIN');
    expect([CX_PTR, '/plugins/linear@openai-curated']).toContain(cx.body.error.details[0].path);
    const oc = await expectRejected('openclaw', { plugins: { [OC]: { enabled: true }, '@openclaw/discord': { enabled: true } } }, []);
    expect(oc.body.error.details.map((d: Detail) => d.code)).toEqual(['DUPLICATE_PLUGIN']);
    expect([OC_PTR, '/plugins/@openclaw~1discord']).toContain(oc.body.error.details[0].path);
  });

  it('[V-4] a rejected PATCH leaves the Agent (version, plugins) and the audit log unchanged', async () => {
    const plugins = { [CX]: { enabled: true, toolDefaults: { approval: 'write_actions' } } };
    const { url } = await newAgent('codex', { plugins });
    const before = (await t.request({ method: 'GET', url })).body.data;
    const events = await auditCount();
    for (const body of [
      { plugins: { [CX]: { enabled: true, tools: { x: { reviewer: 'auto' } } } } },
      { plugins: { [CX]: { enabled: true, approvers: [APPROVER] } }, name: uniqueName('never') },
      { plugins: { [CX]: { enabled: 'yes' } } },
    ]) {
      expect((await t.request({ method: 'PATCH', url, body })).status).toBe(400);
    }
    const after = (await t.request({ method: 'GET', url })).body.data;
    expect(after).toEqual(before);
    expect(after.version).toBe(1);
    expect(await auditCount()).toBe(events);
  });

  it('[V-3] an unknown field inside a selection → 400 UNKNOWN_FIELD at its exact pointer', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ [OC]: { enabled: true, colour: 'red' } }, `${OC_PTR}/colour`],
      [{ [OC]: { enabled: true, toolDefaults: { approval: 'none', extra: 1 } } }, `${OC_PTR}/toolDefaults/extra`],
      [{ [OC]: { enabled: true, tools: { 'a/b~c': { enabled: true, why: 1 } } } }, `${OC_PTR}/tools/a~1b~0c/why`],
      [{ [OC]: { enabled: true, approvers: [{ channel: 'slack', id: 'U1', name: 'x' }] } }, `${OC_PTR}/approvers/0/name`],
    ];
    for (const [plugins, path] of cases) {
      const res = await expectRejected('openclaw', { plugins }, [{ path, code: 'UNKNOWN_FIELD' }]);
      expect(res.body.error.details).toEqual([{ path, code: 'UNKNOWN_FIELD' }]);
    }
    const missing = await expectRejected('openclaw', { plugins: { [OC]: { toolDefaults: { approval: 'none' } } } }, [{ path: `${OC_PTR}/enabled`, code: 'REQUIRED' }]);
    expect(new Set(missing.body.error.details.map((d: Detail) => d.path))).toEqual(new Set([`${OC_PTR}/enabled`]));
  });

  it('[D-18] a selection keeps no Driver links or setup guidance: a discovered entry pasted as a selection is refused field by field', async () => {
    const { ns } = await newAgent('openclaw');
    const page = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/plugins`, body: { harness: 'openclaw' } });
    expect(page.status, page.raw).toBe(200);
    // (This controller's discovery is the spy driver of test-support, speaking the real contract.)
    const entry = page.body.data.plugins.find((e: { description?: string }) => e.description !== undefined);
    expect(entry).toBeDefined();
    // The entry's id is the selection key an Agent's plugins map uses.
    const key: string = entry.id;
    const pointer = `/plugins/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    // The discovery answer carries catalog metadata; none of it belongs in the saved policy.
    const res = await expectRejected('openclaw', { plugins: { [key]: { enabled: true, ...entry } } }, []);
    const refused = new Set(res.body.error.details.map((d: Detail) => d.path));
    for (const field of Object.keys(entry).filter((f) => f !== 'tools')) expect(refused, field).toContain(`${pointer}/${field}`);
    for (const field of ['links', 'setup', 'websiteUrl']) {
      const one = await expectRejected('openclaw', { plugins: { [key]: { enabled: true, [field]: 'https://example.com/' } } }, [
        { path: `${pointer}/${field}`, code: 'UNKNOWN_FIELD' },
      ]);
      expect(one.raw).not.toContain('example.com');
    }
  });

  it('[V-6] validation is static: tool ids no catalog knows, and Codex plugin ids (its catalog needs a credential), are accepted and round-trip', async () => {
    const plugins = { [OC]: { enabled: true, tools: { 'made.up.tool': { enabled: false } } } };
    const oc = await newAgent('openclaw', { plugins });
    expect(oc.agent.plugins).toEqual(plugins);
    const codex = { 'codex:does-not-exist@no-such-market': { enabled: true, tools: { imaginary: { approval: 'all_actions' } } } };
    const cx = await newAgent('codex', { plugins: codex });
    expect(cx.agent.plugins).toEqual(codex);
    expect((await t.request({ method: 'GET', url: cx.url })).body.data.plugins).toEqual(codex);
  });

  it("[V-9] GET /installation lists both harnesses' plugin policy capabilities", async () => {
    const res = await t.request({ method: 'GET', url: '/installation' });
    expect(res.status).toBe(200);
    const { harnesses } = res.body.data.capabilities;
    expect(harnesses.openclaw).toEqual({ pluginDriver: 'openclaw-curated', pluginPolicies: openclawCuratedRules.capabilities });
    expect(harnesses.codex).toEqual({ pluginDriver: 'codex-hosted', pluginPolicies: codexHostedRules.capabilities });
    expect(harnesses.openclaw.pluginPolicies.approval.toolDefaults).toEqual(['provider_default', 'none']);
    expect(harnesses.codex.pluginPolicies.reviewer).toEqual({ toolDefaults: ['human', 'auto'], tools: [] });
    // Installation readers only.
    const p = await newPrincipal(t);
    expect((await t.request({ method: 'GET', url: '/installation', key: p.key })).status).toBe(403);
    await grant(t, p.id, [{ action: 'read', resourceKind: 'installation' }], {});
    const reader = await t.request({ method: 'GET', url: '/installation', key: p.key });
    expect(reader.status).toBe(200);
    expect(reader.body.data.capabilities).toEqual(res.body.data.capabilities);
  });

  it("[V-9] GET …/plugins/capabilities returns the Agent harness's, also to a holder of only agent:update on it", async () => {
    for (const [harness, driver, rules] of [
      ['openclaw', 'openclaw-curated', openclawCuratedRules],
      ['codex', 'codex-hosted', codexHostedRules],
    ] as const) {
      const { ns, cfg, url, agent } = await newAgent(harness);
      // The test controller's compute (scripted) runs every plugin policy: no limits to show.
      const expected = { harness, pluginDriver: driver, pluginPolicies: rules.capabilities, compute: { driver: 'scripted', plugins: true, agentApprovers: true } };
      const res = await t.request({ method: 'GET', url: `${url}/plugins/capabilities` });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expected);

      const sibling = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness });
      const p = await newPrincipal(t);
      await grant(t, p.id, [{ action: 'update', resourceKind: 'agent' }], { namespaceId: ns, resource: { kind: 'agent', id: agent.id } });
      const updater = await t.request({ method: 'GET', url: `${url}/plugins/capabilities`, key: p.key });
      expect(updater.status, updater.raw).toBe(200);
      expect(updater.body.data).toEqual(expected);
      expect([403, 404]).toContain((await t.request({ method: 'GET', url, key: p.key })).status);
      expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${sibling.id}/plugins/capabilities`, key: p.key })).status).toBe(404);
    }
  });

  it('[V-7] an Agent mutation writes exactly one audit event with the Agent id and leaves the Configuration alone', async () => {
    const { ns, cfg } = await setupNamespace(t);
    const cfgBefore = (await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg}` })).body.data;
    const lastEvents = async (n: number) =>
      (
        await t.database.query<{ action: string; resource_id: string; resource_kind: string; details: unknown }>(
          'SELECT action, resource_id, resource_kind, details FROM audit_events ORDER BY seq DESC LIMIT $1',
          [n],
        )
      ).rows;

    let count = await auditCount();
    const created = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'codex', plugins: { [CX]: { enabled: true } } });
    expect(await auditCount()).toBe(count + 1);
    expect((await lastEvents(1))[0]).toMatchObject({ action: 'agents.create', resource_kind: 'agent', resource_id: created.id });

    for (const body of [{ plugins: { [CX]: { enabled: false } } }, { plugins: {} }, { pluginApprovers: [APPROVER] }]) {
      count = await auditCount();
      const res = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${created.id}`, body });
      expect(res.status).toBe(200);
      expect(await auditCount()).toBe(count + 1);
      const [event] = await lastEvents(1);
      expect(event).toMatchObject({ action: 'agents.update', resource_kind: 'agent', resource_id: created.id });
      expect(JSON.stringify(event!.details)).not.toContain('U123');
    }
    const cfgAfter = (await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg}` })).body.data;
    expect(cfgAfter).toEqual(cfgBefore);
    expect(cfgAfter.generation).toBe(1);
  });
});

describe('Agent plugin maps without a PluginDriver for the codex harness', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController({ pluginDrivers: { codex: 'none' } });
  });
  afterAll(async () => t?.close());

  it('[V-5] answers 501 NOT_IMPLEMENTED for a non-empty map and accepts an empty one', async () => {
    const { ns, cfg } = await setupNamespace(t);
    const name = uniqueName('a');
    const res = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name, configurationId: cfg, harness: 'codex', plugins: { [CX]: { enabled: true } } } });
    expect(res.status).toBe(501);
    expect(res.body.error.code).toBe('NOT_IMPLEMENTED');
    expect((await t.database.query('SELECT id FROM agents WHERE name = $1', [name])).rows).toHaveLength(0);

    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'codex', plugins: {} });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    expect((await t.request({ method: 'PATCH', url, body: { plugins: {} } })).status).toBe(200);
    const patch = await t.request({ method: 'PATCH', url, body: { plugins: { [CX]: { enabled: false } } } });
    expect(patch.status).toBe(501);
    expect((await t.request({ method: 'GET', url })).body.data).toMatchObject({ plugins: {}, version: 2 });

    // The openclaw harness keeps its driver; capabilities say codex has none.
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/namespaces/${ns}/agents`,
          body: { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw', plugins: { [OC]: { enabled: true } } },
        })
      ).status,
    ).toBe(201);
    const installation = await t.request({ method: 'GET', url: '/installation' });
    expect(installation.body.data.capabilities.harnesses.codex).toEqual({ pluginDriver: null, pluginPolicies: null });
    expect((await t.request({ method: 'GET', url: `${url}/plugins/capabilities` })).body.data).toEqual({
      harness: 'codex',
      pluginDriver: null,
      pluginPolicies: null,
      compute: { driver: 'scripted', plugins: true, agentApprovers: true },
    });
  });
});
