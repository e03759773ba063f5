import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

const AGENT_KEYS = [
  'activeRevisionId',
  'configurationId',
  'createdAt',
  'desiredState',
  'harness',
  'harnessAuth',
  'id',
  'name',
  'namespaceId',
  'pluginApprovers',
  'plugins',
  'servicePrincipalId',
  'updatedAt',
  'version',
];

describe('Agents over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  async function setup() {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
    const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id as string;
    const secret = (await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'codex-pat' })).id as string;
    return { ns, cfg, secret };
  }
  const agentRows = async (name: string) => (await t.database.query('SELECT id FROM agents WHERE name = $1', [name])).rows;

  it('creates an Agent with each harness', async () => {
    const { ns, cfg, secret } = await setup();
    const openclaw = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' } });
    expect(openclaw.status).toBe(201);
    expect(Object.keys(openclaw.body.data).sort()).toEqual(AGENT_KEYS);
    expect(openclaw.body.data).toMatchObject({ namespaceId: ns, configurationId: cfg, harness: 'openclaw', harnessAuth: null, plugins: {}, pluginApprovers: null, version: 1 });
    expect(openclaw.headers.etag).toBe('"1"');

    const codex = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/agents`,
      body: { name: uniqueName('a'), configurationId: cfg, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: secret } },
    });
    expect(codex.status).toBe(201);
    expect(codex.body.data).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: secret }, version: 1 });
    const bare = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: uniqueName('a'), configurationId: cfg, harness: 'codex' } });
    expect(bare.status).toBe(201);
    expect(bare.body.data.harnessAuth).toBeNull();

    const unknown = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: uniqueName('a'), configurationId: cfg, harness: 'gpt' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.map((d: { path: string }) => d.path)).toContain('/harness');
  });

  it("refuses harnessAuth naming another Namespace's Secret with 400 at /harnessAuth/secretId", async () => {
    const { ns, cfg } = await setup();
    const other = await setup();
    const name = uniqueName('a');
    const res = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/agents`,
      body: { name, configurationId: cfg, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: other.secret } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: '/harnessAuth/secretId', code: 'CROSS_NAMESPACE_REFERENCE' }]);
    expect(await agentRows(name)).toHaveLength(0);

    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'codex' });
    const patch = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { harnessAuth: { method: 'codex_pat', secretId: other.secret } } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details).toEqual([{ path: '/harnessAuth/secretId', code: 'CROSS_NAMESPACE_REFERENCE' }]);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agent.id}` })).body.data).toMatchObject({ harnessAuth: null, version: 1 });
  });

  it('requires secret:operate on the harnessAuth Secret; without it no Agent row is created', async () => {
    const { ns, cfg, secret } = await setup();
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'create', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: ns },
    );
    const body = { name: uniqueName('a'), configurationId: cfg, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: secret } };
    const denied = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, key: p.key, body });
    expect([403, 404]).toContain(denied.status);
    expect(denied.raw).not.toContain('codex-pat');
    expect(await agentRows(body.name)).toHaveLength(0);
    const principals = await t.database.query("SELECT id FROM principals WHERE kind = 'service' AND agent_id IS NOT NULL AND namespace_id = $1", [ns]);
    expect(principals.rows).toHaveLength(0);

    // Holding read (but not operate) on the Secret is still not enough.
    await grant(t, p.id, [{ action: 'read', resourceKind: 'secret' }], { namespaceId: ns });
    const stillDenied = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, key: p.key, body });
    expect(stillDenied.status).toBe(403);
    expect(await agentRows(body.name)).toHaveLength(0);

    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret } });
    const allowed = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, key: p.key, body });
    expect(allowed.status, allowed.raw).toBe(201);
    expect(await agentRows(body.name)).toHaveLength(1);
  });

  it('refuses codex_pat on the openclaw harness', async () => {
    const { ns, cfg, secret } = await setup();
    const name = uniqueName('a');
    const res = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/agents`,
      body: { name, configurationId: cfg, harness: 'openclaw', harnessAuth: { method: 'codex_pat', secretId: secret } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details[0].path).toMatch(/^\/harnessAuth/);
    expect(await agentRows(name)).toHaveLength(0);

    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    const patch = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { harnessAuth: { method: 'codex_pat', secretId: secret } } });
    expect(patch.status).toBe(400);
  });

  it('gives every Agent its own service principal, deleted with the Agent', async () => {
    const { ns, cfg } = await setup();
    const a1 = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    const a2 = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'codex' });
    expect(a1.servicePrincipalId).toMatch(/^prn_/);
    expect(a1.servicePrincipalId).not.toBe(a2.servicePrincipalId);
    for (const agent of [a1, a2]) {
      const res = await t.request({ method: 'GET', url: `/principals/${agent.servicePrincipalId}` });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: agent.servicePrincipalId, kind: 'service', agentId: agent.id, namespaceId: ns });
    }
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/agents/${a1.id}` })).status).toBe(204);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${a1.id}` })).status).toBe(404);
    expect((await t.request({ method: 'GET', url: `/principals/${a1.servicePrincipalId}` })).status).toBe(404);
    expect((await t.database.query('SELECT id FROM principals WHERE id = $1', [a1.servicePrincipalId])).rows).toHaveLength(0);
    expect((await t.request({ method: 'GET', url: `/principals/${a2.servicePrincipalId}` })).status).toBe(200);
    // The principal cannot be deleted on its own: it lives and dies with its Agent.
    expect((await t.request({ method: 'DELETE', url: `/principals/${a2.servicePrincipalId}` })).status).toBe(409);
  });

  it('returns an ETag "<version>" and honours If-Match: stale → 412 and no change, current → 200 and a new ETag', async () => {
    const { ns, cfg } = await setup();
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    const got = await t.request({ method: 'GET', url });
    expect(got.headers.etag).toBe('"1"');

    const name2 = uniqueName('a');
    const first = await t.request({ method: 'PATCH', url, body: { name: name2 }, headers: { 'if-match': '"1"' } });
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBe('"2"');
    expect(first.body.data).toMatchObject({ name: name2, version: 2 });

    // A writer still holding "1" is refused and changes nothing.
    const stale = await t.request({ method: 'PATCH', url, body: { name: uniqueName('stale') }, headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    const after = await t.request({ method: 'GET', url });
    expect(after.body.data).toMatchObject({ name: name2, version: 2 });
    expect(after.headers.etag).toBe('"2"');
    expect(after.body.data.updatedAt).toBe(first.body.data.updatedAt);

    const garbage = await t.request({ method: 'PATCH', url, body: { name: uniqueName('g') }, headers: { 'if-match': 'not-an-etag' } });
    expect(garbage.status).toBe(412);
    expect((await t.request({ method: 'GET', url })).body.data.version).toBe(2);

    const current = await t.request({ method: 'PATCH', url, body: { pluginApprovers: [] }, headers: { 'if-match': after.headers.etag as string } });
    expect(current.status).toBe(200);
    expect(current.headers.etag).toBe('"3"');
  });

  it('without If-Match the last write wins', async () => {
    const { ns, cfg } = await setup();
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    const nameA = uniqueName('writer-a');
    const nameB = uniqueName('writer-b');
    const a = await t.request({ method: 'PATCH', url, body: { name: nameA } });
    const b = await t.request({ method: 'PATCH', url, body: { name: nameB } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.etag).toBe('"3"');
    const got = await t.request({ method: 'GET', url });
    expect(got.body.data).toMatchObject({ name: nameB, version: 3 });
  });

  it('answers 404 for an Agent addressed through another Namespace, and for a malformed id', async () => {
    const a = await setup();
    const b = await setup();
    const agent = await adminCreate(t, `/namespaces/${a.ns}/agents`, { name: uniqueName('a'), configurationId: a.cfg, harness: 'openclaw' });
    expect((await t.request({ method: 'GET', url: `/namespaces/${b.ns}/agents/${agent.id}` })).status).toBe(404);
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${b.ns}/agents/${agent.id}`, body: { name: 'x' } })).status).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${b.ns}/agents/${agent.id}` })).status).toBe(404);
    expect((await t.request({ method: 'GET', url: `/namespaces/${a.ns}/agents/not-an-id` })).status).toBe(404);
    // A Configuration of another Namespace cannot be used either.
    const cross = await t.request({ method: 'POST', url: `/namespaces/${a.ns}/agents`, body: { name: uniqueName('a'), configurationId: b.cfg, harness: 'openclaw' } });
    expect([400, 404]).toContain(cross.status);
    expect(cross.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/configurationId']);
  });
});
