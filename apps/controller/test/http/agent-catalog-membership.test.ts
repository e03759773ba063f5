import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openclawCuratedCatalog } from '@occ/policy';
import { storePluginsUnchecked, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';
import { createOpenClawCuratedDriver } from '../../src/drivers/plugin/openclaw-curated/index.ts';

const MISSING = 'openclaw:@openclaw/does-not-exist-xyz';
const MISSING_PTR = '/plugins/openclaw:@openclaw~1does-not-exist-xyz';
const REFUSAL = { code: 'INVALID_REQUEST', message: 'The plugin catalog does not offer the selected plugin.' };

/** A plugin the curated catalog does not offer is refused when the Agent is saved, by the dry run's rule. */
describe('saving an Agent with a plugin its catalog does not offer', () => {
  let t: TestController;
  let ns: string;
  let cfg: string;
  beforeAll(async () => {
    t = await startTestController();
    ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id;
  });
  afterAll(async () => t?.close());

  const create = (plugins: Record<string, unknown>, name = uniqueName('a')) =>
    t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name, configurationId: cfg, harness: 'openclaw', plugins } });
  const auditCount = async () => Number((await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0]!.n);
  async function saved(plugins: Record<string, unknown> = { browser: { enabled: true } }): Promise<DeployTarget & { name: string }> {
    const name = uniqueName('a');
    const res = await create(plugins, name);
    expect(res.status, res.raw).toBe(201);
    return { ns, cfg, agentId: res.body.data.id, servicePrincipalId: res.body.data.servicePrincipalId, url: `/namespaces/${ns}/agents/${res.body.data.id}`, name };
  }

  it('[V-4] create: 400 naming the plugin by its JSON pointer; no Agent and no audit event is written', async () => {
    const name = uniqueName('a');
    const events = await auditCount();
    const res = await create({ [MISSING]: { enabled: true }, browser: { enabled: true } }, name);
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error).toEqual({ ...REFUSAL, details: [{ path: MISSING_PTR, code: 'UNSUPPORTED_VALUE' }] });
    expect((await t.database.query('SELECT id FROM agents WHERE name = $1', [name])).rows).toHaveLength(0);
    expect(await auditCount()).toBe(events);
  });

  it('[V-4] update: 400 for a new map with such a plugin; the Agent (version, plugins) and the audit log stay unchanged', async () => {
    const target = await saved();
    const before = (await t.request({ method: 'GET', url: target.url })).body.data;
    const events = await auditCount();
    const res = await t.request({ method: 'PATCH', url: target.url, body: { plugins: { ...before.plugins, [MISSING]: { enabled: false } } } });
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error).toEqual({ ...REFUSAL, details: [{ path: MISSING_PTR, code: 'UNSUPPORTED_VALUE' }] });
    expect((await t.request({ method: 'GET', url: target.url })).body.data).toEqual(before);
    expect(await auditCount()).toBe(events);
  });

  it('the rule is the dry run’s: the same selections get the same pointers and codes from both', async () => {
    const plugins = { [MISSING]: { enabled: true }, 'openclaw:nostr': { enabled: true }, '@openclaw/nostr': { enabled: true }, 'openclaw:browser': { enabled: false } };
    const refused = await create(plugins);
    expect(refused.status, refused.raw).toBe(400);
    // An Agent saved before the rule with the same map: the dry run refuses exactly those keys.
    const target = await saved();
    await storePluginsUnchecked(t, target, plugins);
    const dryRun = await t.request({ method: 'POST', url: `${target.url}/deploy`, body: { dryRun: true } });
    expect(dryRun.status, dryRun.raw).toBe(200);
    expect(dryRun.body.data.nativeConfiguration).toEqual({ status: 'refused', harness: 'openclaw', violations: refused.body.error.details });
    expect(refused.body.error.details).toEqual([
      { path: MISSING_PTR, code: 'UNSUPPORTED_VALUE' },
      { path: '/plugins/openclaw:nostr', code: 'UNSUPPORTED_VALUE' },
    ]);
  });

  it('an Agent saved before the rule: a rename or new approvers leave its selections alone; a new map is checked', async () => {
    const target = await saved();
    await storePluginsUnchecked(t, target, { [MISSING]: { enabled: true } });
    const renamed = await t.request({ method: 'PATCH', url: target.url, body: { name: uniqueName('renamed') } });
    expect(renamed.status, renamed.raw).toBe(200);
    const approvers = await t.request({ method: 'PATCH', url: target.url, body: { pluginApprovers: [{ channel: 'slack', id: 'U1' }] } });
    expect(approvers.status, approvers.raw).toBe(200);
    expect(approvers.body.data.plugins).toEqual({ [MISSING]: { enabled: true } });
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: { [MISSING]: { enabled: false } } } })).status).toBe(400);
    expect((await t.request({ method: 'PATCH', url: target.url, body: { plugins: {} } })).status).toBe(200);
  });

  it('every catalog entry saves, with or without the `openclaw:` prefix', async () => {
    const ids = openclawCuratedCatalog().plugins.map((plugin) => plugin.id);
    const half = Math.ceil(ids.length / 2);
    const plugins = Object.fromEntries(ids.map((id, i) => [i < half ? `openclaw:${id}` : id, { enabled: false }]));
    expect((await saved(plugins)).agentId).toMatch(/^agt_/);
  });
});

describe('the curated driver checks the catalog it serves', () => {
  it('an operator’s catalog (OCC_OPENCLAW_CATALOG) decides, not the committed one', () => {
    const committed = openclawCuratedCatalog();
    const onlyBrowser = { ...committed, plugins: committed.plugins.filter((plugin) => plugin.id === 'browser') };
    const driver = createOpenClawCuratedDriver({ catalog: onlyBrowser });
    expect(driver.uncataloguedSelections!({ 'openclaw:browser': { enabled: true }, 'openclaw:xai': { enabled: true } }).map(({ path, code }) => ({ path, code }))).toEqual([
      { path: '/plugins/openclaw:xai', code: 'UNSUPPORTED_VALUE' },
    ]);
  });
});
