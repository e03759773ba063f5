import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@occ/contracts';
import { startOidcProvider } from '../../../../test-support/oidc-provider.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';
import { startExtraWorker, waitFor } from '../../../../test-support/deploy-helpers.ts';

interface AuditRow {
  seq: number;
  action: string;
  actor_id: string | null;
  resource_kind: string | null;
  resource_id: string | null;
  request_id: string | null;
  namespace_id: string | null;
}

describe('Audit events', () => {
  let t: TestController;
  let adminId: string;
  beforeAll(async () => {
    t = await startTestController();
    const { rows } = await t.database.query<{ principal_id: string }>("SELECT principal_id FROM api_keys WHERE name = 'bootstrap administrator key'");
    adminId = rows[0]!.principal_id;
  });
  afterAll(async () => t?.close());

  const count = async () => Number((await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0]!.n);
  const latest = async () => (await t.database.query<AuditRow>('SELECT * FROM audit_events ORDER BY seq DESC LIMIT 1')).rows[0]!;

  /** Runs one mutation and checks it wrote exactly one event, with its action, resource, actor and request id. */
  async function expectOneEvent(action: string, send: () => Promise<TestResponse>, resourceId?: (res: TestResponse) => string): Promise<TestResponse> {
    const before = await count();
    const res = await send();
    expect(res.status, `${action}: ${res.raw}`).toBeLessThan(300);
    expect(await count(), action).toBe(before + 1);
    const event = await latest();
    expect(event.action).toBe(action);
    expect(event.actor_id).toBe(adminId);
    expect(event.request_id).toBe(res.headers['x-request-id']);
    if (resourceId) expect(event.resource_id).toBe(resourceId(res));
    return res;
  }

  it('writes exactly one event for every create, update and delete of every resource kind', async () => {
    const audited = new Set(routeTable.filter((r) => r.audit).map((r) => r.audit!));
    const seen = new Set<string>();
    const req = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) => () => t.request({ method, url, ...(body !== undefined ? { body } : {}) });
    const step = async (action: string, send: () => Promise<TestResponse>, id?: (r: TestResponse) => string) => {
      seen.add(action);
      return expectOneEvent(action, send, id);
    };
    const dataId = (r: TestResponse) => r.body.data.id as string;

    const ns = (await step('namespaces.create', req('POST', '/namespaces', { name: uniqueName('ns') }), dataId)).body.data.id;
    const base = `/namespaces/${ns}`;
    const sec = (await step('secrets.create', req('POST', `${base}/secrets`, { name: uniqueName('s'), value: 'v1' }), dataId)).body.data.id;
    await step('secrets.update', req('PATCH', `${base}/secrets/${sec}`, { value: 'v2' }), () => sec);
    const cfg = (await step('configurations.create', req('POST', `${base}/configurations`, { name: uniqueName('c'), values: {} }), dataId)).body.data.id;
    await step('configurations.update', req('PATCH', `${base}/configurations/${cfg}`, { values: { a: 1 } }), () => cfg);
    const agt = (await step('agents.create', req('POST', `${base}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' }), dataId)).body.data.id;
    await step('agents.update', req('PATCH', `${base}/agents/${agt}`, { plugins: {} }), () => agt);
    // The gateway's chat endpoint on, so the deployed Agent can be sent a message.
    expect((await req('PATCH', `${base}/configurations/${cfg}`, { values: { a: 1, gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } } })()).status).toBe(
      200,
    );
    await step('agents.deploy', req('POST', `${base}/agents/${agt}/deploy`), () => agt);
    // A worker makes the revision active (on the controller's own scripted compute), then a message is relayed.
    const worker = startExtraWorker(t, t.controller.deps.compute!);
    await waitFor(
      'the revision to become active',
      async () => (await t.request({ method: 'GET', url: `${base}/agents/${agt}` })).body.data.activeRevisionId,
      (id) => id !== null,
    );
    await worker.stop();
    const message = await step('agents.message', req('POST', `${base}/agents/${agt}/messages`, { text: 'hello' }), () => agt);
    expect(message.raw).toContain('event: done');
    await step('agents.stop', req('POST', `${base}/agents/${agt}/stop`), () => agt);
    // The stop finishes (a worker clears the active revision), so the Agent may be deleted below.
    const stopper = startExtraWorker(t, t.controller.deps.compute!);
    await waitFor(
      'the stop to finish',
      async () => (await t.request({ method: 'GET', url: `${base}/agents/${agt}` })).body.data.activeRevisionId,
      (id) => id === null,
    );
    await stopper.stop();

    const prn = (await step('principals.create', req('POST', '/principals', { kind: 'human', name: uniqueName('p') }), dataId)).body.data.id;
    const key = (await step('api_keys.create', req('POST', `/principals/${prn}/api-keys`, { name: 'k' }), (r) => r.body.data.apiKey.id)).body.data.apiKey.id;
    await step('api_keys.revoke', req('DELETE', `/principals/${prn}/api-keys/${key}`), () => key);
    const role = (await step('roles.create', req('POST', '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] }), dataId)).body.data.id;
    const bind = (await step('access_bindings.create', req('POST', '/iam/access-bindings', { principalId: prn, roleId: role, namespaceId: ns }), dataId)).body.data.id;
    const rst = (await step('restrictions.create', req('POST', '/iam/restrictions', { principalId: prn, action: 'delete', resourceKind: 'agent' }), dataId)).body.data.id;
    await step('restrictions.delete', req('DELETE', `/iam/restrictions/${rst}`), () => rst);
    // Single sign-on: the provider (a real one, so a device sign-in can start), a rule, and the anonymous start.
    const idp = await startOidcProvider({ users: [], redirectUris: [] });
    try {
      const clientSecret = (await req('POST', `${base}/secrets`, { name: uniqueName('sso'), value: idp.clientSecret })()).body.data.id;
      const provider = { issuer: idp.issuer, clientId: idp.clientId, clientSecretId: clientSecret, publicUrl: 'http://occ.example.test' };
      await step('sign_in_provider.put', req('PUT', '/sign-in/provider', provider), () => 'installation');
      const rule = (await step('sign_in_rules.create', req('POST', '/iam/sign-in-rules', { value: 'auditors', roleId: role, namespaceId: ns }), dataId)).body.data.id;
      await step('sign_in_rules.delete', req('DELETE', `/iam/sign-in-rules/${rule}`), () => rule);
      seen.add('sign_in.device_start');
      const before = await count();
      const started = await t.request({ method: 'POST', url: '/sign-in/device', key: null });
      expect(started.status, started.raw).toBe(201);
      expect(await count()).toBe(before + 1);
      // Nobody is signed in yet: the event has no actor, only the request that started it.
      expect(await latest()).toMatchObject({ action: 'sign_in.device_start', actor_id: null, request_id: started.headers['x-request-id'] });
      await step('sign_in_provider.delete', req('DELETE', '/sign-in/provider'), () => 'installation');
      await req('DELETE', `${base}/secrets/${clientSecret}`)();
    } finally {
      await idp.close();
    }
    await step('access_bindings.delete', req('DELETE', `/iam/access-bindings/${bind}`), () => bind);
    await step('roles.delete', req('DELETE', `/iam/roles/${role}`), () => role);
    await step('principals.delete', req('DELETE', `/principals/${prn}`), () => prn);
    const signedIn = await step('sessions.create', () => t.request({ method: 'POST', url: '/sessions', key: null, body: { apiKey: t.adminKey } }));
    const cookie = String([signedIn.headers['set-cookie']].flat()[0]).split(';')[0]!;
    await step('sessions.delete', () => t.request({ method: 'DELETE', url: '/sessions/current', key: null, headers: { cookie, 'x-csrf-token': signedIn.body.data.csrfToken } }));

    // The Namespace's SSH host, once its Agent's stop finished (the controller's scripted ComputeDriver takes any host).
    const host = { address: 'ssh-host.example.test', user: 'occ-agents', hostKey: `SHA256:${'A'.repeat(43)}`, privateKeySecretId: sec };
    await step('ssh_hosts.put', req('PUT', `${base}/ssh-host`, host), () => ns);
    await step('ssh_hosts.delete', req('DELETE', `${base}/ssh-host`), () => ns);

    await step('agents.delete', req('DELETE', `${base}/agents/${agt}`), () => agt);
    await step('configurations.delete', req('DELETE', `${base}/configurations/${cfg}`), () => cfg);
    await step('secrets.delete', req('DELETE', `${base}/secrets/${sec}`), () => sec);
    await step('namespaces.delete', req('DELETE', base), () => ns);

    // Every audited route of the table was exercised; a new one without a step here fails.
    expect([...audited].filter((a) => !seen.has(a))).toEqual([]);
  });

  it('writes no event for reads or for refused mutations', async () => {
    const ns = await adminCreate(t, '/namespaces', { name: uniqueName('ns') });
    const before = await count();
    await t.request({ method: 'GET', url: `/namespaces/${ns.id}` });
    await t.request({ method: 'GET', url: '/audit-events' });
    expect((await t.request({ method: 'POST', url: '/namespaces', body: { name: ns.name } })).status).toBe(409);
    expect((await t.request({ method: 'POST', url: `/namespaces/${ns.id}/secrets`, body: { name: 'x' } })).status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('[V-7] a failing audit write rolls the change back (Namespace create, Secret create, Agent PATCH, delete)', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      plugins: { 'codex:linear@openai-curated': { enabled: true } },
    });
    const fn = `occ_fail_audit_${randomBytes(4).toString('hex')}`;
    await t.database.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit store refuses writes'; END $$`);
    await t.database.query(`CREATE TRIGGER ${fn} BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    const before = await count();
    try {
      const nsName = uniqueName('ns-rolled-back');
      const createNs = await t.request({ method: 'POST', url: '/namespaces', body: { name: nsName } });
      expect(createNs.status).toBeGreaterThanOrEqual(500);
      expect(createNs.body.error.code).toBe('INTERNAL_ERROR');
      expect(createNs.raw).not.toContain('audit store refuses');
      expect((await t.database.query('SELECT id FROM namespaces WHERE name = $1', [nsName])).rows).toHaveLength(0);

      const secName = uniqueName('s-rolled-back');
      const createSecret = await t.request({ method: 'POST', url: `/namespaces/${ns}/secrets`, body: { name: secName, value: 'never-kept' } });
      expect(createSecret.status).toBeGreaterThanOrEqual(500);
      expect((await t.database.query('SELECT id FROM secrets WHERE name = $1', [secName])).rows).toHaveLength(0);

      const patch = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { name: uniqueName('renamed'), plugins: {} } });
      expect(patch.status).toBeGreaterThanOrEqual(500);
      const del = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/agents/${agent.id}` });
      expect(del.status).toBeGreaterThanOrEqual(500);
      const stored = await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agent.id}` });
      expect(stored.status).toBe(200);
      expect(stored.body.data).toEqual(agent);
      expect((await t.request({ method: 'GET', url: `/principals/${agent.servicePrincipalId}` })).status).toBe(200);

      const createAgentName = uniqueName('a-rolled-back');
      const createAgent = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: createAgentName, configurationId: cfg.id, harness: 'openclaw' } });
      expect(createAgent.status).toBeGreaterThanOrEqual(500);
      expect((await t.database.query('SELECT id FROM agents WHERE name = $1', [createAgentName])).rows).toHaveLength(0);
      expect((await t.database.query('SELECT id FROM principals WHERE namespace_id = $1', [ns])).rows).toHaveLength(1);
    } finally {
      await t.database.query(`DROP TRIGGER ${fn} ON audit_events`);
      await t.database.query(`DROP FUNCTION ${fn}()`);
    }
    expect(await count()).toBe(before);
    // With the audit store healthy again, the same change goes through.
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { plugins: {} } })).status).toBe(200);
  });

  it('GET /audit-events is for Installation administrators only', async () => {
    const p = await newPrincipal(t);
    expect((await t.request({ method: 'GET', url: '/audit-events', key: p.key })).status).toBe(403);
    const everythingButAdminister = ['create', 'read', 'update', 'delete', 'deploy', 'operate'].flatMap((action) =>
      ['installation', 'namespace', 'secret', 'configuration', 'agent'].map((resourceKind) => ({ action, resourceKind })),
    );
    await grant(t, p.id, everythingButAdminister, {});
    const denied = await t.request({ method: 'GET', url: '/audit-events', key: p.key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect(denied.body.error.details).toBeUndefined();
    await grant(t, p.id, [{ action: 'administer', resourceKind: 'installation' }], {});
    expect((await t.request({ method: 'GET', url: '/audit-events', key: p.key })).status).toBe(200);
  });

  it('lists newest first and pages with cursors, every event exactly once', async () => {
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await adminCreate(t, '/namespaces', { name: uniqueName('order') })).id);
    const head = await t.request({ method: 'GET', url: '/audit-events?limit=3' });
    expect(head.status).toBe(200);
    expect(head.body.data.items.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([...created].reverse());
    expect(head.body.data.items.every((e: { action: string }) => e.action === 'namespaces.create')).toBe(true);

    const ids: string[] = [];
    const times: number[] = [];
    let cursor: string | null = null;
    do {
      const res: TestResponse = await t.request({ method: 'GET', url: `/audit-events?limit=7${cursor ? `&cursor=${cursor}` : ''}` });
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(7);
      for (const e of res.body.data.items) {
        ids.push(e.id);
        times.push(Date.parse(e.occurredAt));
      }
      cursor = res.body.data.nextCursor;
    } while (cursor !== null);
    const { rows } = await t.database.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq DESC');
    expect(ids).toEqual(rows.map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeLessThanOrEqual(times[i - 1]!);

    const bad = await t.request({ method: 'GET', url: `/audit-events?cursor=${Buffer.from('{"l":"audit","a":"0 OR 1=1"}').toString('base64url')}` });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: '/cursor', code: 'INVALID_VALUE' }]);
    const foreign = (await t.request({ method: 'GET', url: '/namespaces?limit=1' })).body.data.nextCursor;
    expect((await t.request({ method: 'GET', url: `/audit-events?cursor=${foreign}` })).status).toBe(400);
  });

  it('never records a Secret value or an API key', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const v1 = `canary-audit-${randomBytes(16).toString('hex')}`;
    const v2 = `canary-audit-${randomBytes(16).toString('hex')}`;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: v1 });
    await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: v2 } });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { TOKEN: { secretId: secret.id } } });
    await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: secret.id },
    });
    const p = await newPrincipal(t);

    const all = JSON.stringify((await t.database.query('SELECT * FROM audit_events')).rows);
    expect(all).toContain(secret.id);
    for (const canary of [v1, v2, p.key, t.adminKey]) expect(all).not.toContain(canary);
    const listed = await t.request({ method: 'GET', url: '/audit-events?limit=200' });
    for (const canary of [v1, v2, p.key]) expect(listed.raw).not.toContain(canary);
  });
});
