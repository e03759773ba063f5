import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, routeTable } from '@occ/contracts';
import { LATEST_SCHEMA_VERSION } from '../../src/state/migrate.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { buildWorld, newPrincipal, uniqueName, type World } from '../../../../test-support/world.ts';
import { bodyRoutes, fixtureFor, missingFixtures, responseProblems, send, urlWithParams } from '../../../../test-support/route-fixtures.ts';

const statusOf = (code: string) => (ERROR_STATUS as Record<string, number>)[code];
const REQUEST_ID = /^req_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The envelope, the headers, the code and its status: what every error answer must have. */
function expectError(res: TestResponse, status: number, code: string) {
  expect(res.status, res.raw.slice(0, 300)).toBe(status);
  expect(res.body?.error?.code, res.raw.slice(0, 300)).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
  expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
  expect(res.headers['cache-control']).toBe('no-store');
}
const details = (res: TestResponse) => res.body?.error?.details ?? [];

describe('HTTP edges', () => {
  let t: TestController;
  let w: World;
  let ns: string;
  beforeAll(async () => {
    t = await startTestController();
    w = await buildWorld(t);
    ns = `/namespaces/${w.nsA}`;
  });
  afterAll(async () => t?.close());

  it('every route has a request fixture', () => expect(missingFixtures()).toEqual([]));

  it('a body over the limit → 413 PAYLOAD_TOO_LARGE; a body under it is served', async () => {
    const small = await startTestController({ bodyLimit: 1024 });
    try {
      const url = `/namespaces/${small.defaultNamespaceId}/configurations`;
      expectError(await small.request({ method: 'POST', url, body: { name: 'big', values: { x: 'x'.repeat(2048) } } }), 413, 'PAYLOAD_TOO_LARGE');
      expect((await small.request({ method: 'POST', url, body: { name: 'fits', values: { x: 'x'.repeat(900) } } })).status).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('Configuration values over 256 KiB → 413 naming /values', async () => {
    const res = await t.request({ method: 'POST', url: `${ns}/configurations`, body: { name: uniqueName('c'), values: { x: 'x'.repeat(300 * 1024) } } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(details(res)).toContainEqual({ path: '/values', code: 'TOO_LARGE' });
  });

  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/vnd.api+json'])(
    'content-type %s with a body → 415 UNSUPPORTED_MEDIA_TYPE',
    async (type) => {
      expectError(await t.request({ method: 'POST', url: '/namespaces', body: '{"name":"x"}', headers: { 'content-type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('application/json with a charset is accepted', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/namespaces',
      body: JSON.stringify({ name: uniqueName('cs') }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('a route that takes no body serves an empty one sent as application/json (a client that always sends the header); a route that takes one answers 400', async () => {
    const own = await buildWorld(t);
    // Deploy's body is optional (dry run, rollback): an empty one is none, like a bodiless route's.
    const bodiless = routeTable.filter((route) => route.method !== 'GET' && (route.schemas.body === undefined || route.optionalBody) && route.auth === 'api_key');
    expect(bodiless.map((route) => route.operationId)).toEqual(expect.arrayContaining(['deployAgent', 'stopAgent']));
    for (const route of bodiless) {
      const fixture = fixtureFor(route, own);
      const res = await t.request({ method: route.method, url: fixture.url, body: '', headers: { 'content-type': 'application/json' } });
      // The route's own answer (a non-empty Namespace is still 409), never a complaint about the body.
      expect(res.status, `${route.operationId}: ${res.raw.slice(0, 200)}`).not.toBe(400);
      expect(res.status, route.operationId).toBeLessThan(500);
      if (route.operationId === 'deployAgent') expect(res.status, res.raw.slice(0, 200)).toBe(route.successStatus);
    }
    expectError(await t.request({ method: 'POST', url: '/namespaces', body: '', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_REQUEST');
  });

  it.each(['{', '{"name":', "{'name':'x'}", '{"name":"x",}', 'nul', '{"name":"x"} trailing', ''])('malformed JSON %j → 400 INVALID_REQUEST', async (raw) => {
    const res = await t.request({ method: 'POST', url: '/namespaces', body: raw, headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(details(res).map((d: { path: string }) => d.path)).toEqual(['']);
  });

  it('an unknown top-level field → 400 UNKNOWN_FIELD at /extra', async () => {
    const res = await t.request({ method: 'POST', url: '/namespaces', body: { name: uniqueName('n'), extra: 1 } });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(details(res)).toContainEqual({ path: '/extra', code: 'UNKNOWN_FIELD' });
  });

  it.each([
    [{ plugins: { x: { enabled: true, toolDefaults: { bogus: 1 } } } }, '/plugins/x/toolDefaults/bogus'],
    [{ plugins: { 'a/b~c': { enabled: true, toolDefaults: { bogus: 1 } } } }, '/plugins/a~1b~0c/toolDefaults/bogus'],
    [{ plugins: { x: { enabled: true, tools: { 't/1': { enabled: true, bogus: 1 } } } } }, '/plugins/x/tools/t~11/bogus'],
    [{ pluginApprovers: [{ channel: 'slack', id: 'U1', bogus: 1 }] }, '/pluginApprovers/0/bogus'],
  ])('a nested unknown field %j → 400 UNKNOWN_FIELD at %s', async (body, path) => {
    const res = await t.request({ method: 'PATCH', url: `${ns}/agents/${w.agentA2}`, body });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(details(res)).toContainEqual({ path, code: 'UNKNOWN_FIELD' });
  });

  it.each([
    ['/namespaces', {}, '/name'],
    ['agents', { name: 'a', configurationId: '' }, '/harness'],
    ['agents', { name: 'a', configurationId: '', harness: 'codex', harnessAuth: { method: 'codex_pat' } }, '/harnessAuth/secretId'],
    ['agents', { name: 'a', configurationId: '', harness: 'openclaw', plugins: { x: { toolDefaults: { enabled: true } } } }, '/plugins/x/enabled'],
    ['/iam/roles', { name: 'r', permissions: [{ action: 'read' }] }, '/permissions/0/resourceKind'],
  ])('a missing required field (%s) → 400 REQUIRED at its pointer %j', async (where, body, path) => {
    const url = where === 'agents' ? `${ns}/agents` : where;
    const res = await t.request({ method: 'POST', url, body: where === 'agents' ? { ...body, configurationId: w.cfgA } : body });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(details(res)).toContainEqual({ path, code: 'REQUIRED' });
  });

  it.each([
    ['/namespaces', '{"name":"proto-1","__proto__":{"polluted":true}}'],
    ['configurations', '{"name":"proto-2","values":{"__proto__":{"polluted":true}}}'],
    ['configurations', '{"name":"proto-3","values":{"constructor":{"prototype":{"polluted":true}}}}'],
  ])('a __proto__ / constructor.prototype key (%s) is refused with 400, pollutes nothing and creates nothing', async (where, raw) => {
    const url = where === 'configurations' ? `${ns}/configurations` : where;
    const res = await t.request({ method: 'POST', url, body: raw, headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const list = await t.request({ method: 'GET', url: `${url}?limit=200` });
    expect(list.body.data.items.map((i: { name: string }) => i.name)).not.toContain(JSON.parse(raw.replace('"__proto__"', '"p"')).name);
  });

  it('Configuration values nested 10,000 deep are stored or refused with a 4xx, never a 5xx', async () => {
    for (const inner of ['{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '['.repeat(10_000) + ']'.repeat(10_000)]) {
      const raw = `{"name":"${uniqueName('deep')}","values":{"a":${inner}}}`;
      const res = await t.request({ method: 'POST', url: `${ns}/configurations`, body: raw, headers: { 'content-type': 'application/json' } });
      expect(responseProblems(res, JSON.parse(raw), statusOf)).toEqual([]);
    }
  });

  it('unknown routes and methods → 404 envelope', async () => {
    expectError(await t.request({ method: 'GET', url: '/no/such/route' }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'GET', url: '/no/such/route', key: null }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'PUT', url: '/namespaces' }), 404, 'NOT_FOUND');
    // The console's static paths (GET|HEAD / and /assets/*) take nothing else: the rest is the API's.
    for (const [method, url] of [
      ['POST', '/'],
      ['DELETE', '/'],
      ['GET', '/index.html'],
      ['GET', '/assets'],
      ['PUT', '/assets/app.js'],
      ['GET', '/assetsx/app.js'],
    ] as const) {
      expectError(await t.request({ method, url }), 404, 'NOT_FOUND');
    }
  });

  it("an unknown console asset is the console's plain 404 (not the API envelope, never index.html), still no-store", async () => {
    const res = await t.request({ method: 'GET', url: '/assets/no-such-asset-00000000.js', key: null });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(res.raw).not.toContain('<html');
  });

  it('every answer — 200, 201, 204, 400, 401, 404, 409, 413, 415 — carries x-request-id (req_ + UUIDv4), no-store and meta.requestId', async () => {
    const name = uniqueName('dup');
    const created = await t.request({ method: 'POST', url: '/namespaces', body: { name } });
    const answers = [
      await t.request({ method: 'GET', url: '/healthz', key: null }),
      created,
      await t.request({ method: 'POST', url: '/namespaces', body: { name } }),
      await t.request({ method: 'DELETE', url: `/namespaces/${created.body.data.id}` }),
      await t.request({ method: 'POST', url: '/namespaces', body: { bogus: 1 } }),
      await t.request({ method: 'GET', url: '/namespaces', key: null }),
      await t.request({ method: 'GET', url: `/namespaces/ns_${crypto.randomUUID()}` }),
      await t.request({ method: 'GET', url: '/nope' }),
      await t.request({ method: 'POST', url: '/namespaces', body: 'x', headers: { 'content-type': 'text/plain' } }),
      await t.request({ method: 'POST', url: `${ns}/configurations`, body: { name: 'big', values: { x: 'x'.repeat(1_100_000) } } }),
      await t.request({ method: 'GET', url: '/namespaces', headers: { 'x-request-id': 'client-chosen' } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 201, 409, 204, 400, 401, 404, 404, 415, 413, 200]);
    for (const res of answers) {
      expect(res.headers['x-request-id'], res.raw.slice(0, 200)).toMatch(REQUEST_ID);
      expect(res.headers['cache-control']).toBe('no-store');
      if (res.status !== 204) expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
    }
    expect(new Set(answers.map((a) => a.headers['x-request-id'])).size).toBe(answers.length);
  });

  it('/healthz answers 200 without a key; /readyz answers 200 with the schema version', async () => {
    const health = await t.request({ method: 'GET', url: '/healthz', key: null });
    expect([health.status, health.body.data]).toEqual([200, { status: 'ok' }]);
    const ready = await t.request({ method: 'GET', url: '/readyz', key: null });
    expect([ready.status, ready.body.data]).toEqual([200, { status: 'ready', schemaVersion: LATEST_SCHEMA_VERSION }]);
  });

  it('/readyz → 503 DEPENDENCY_UNAVAILABLE when the ledger is behind, missing, or the database fails — without SQL in the answer', async () => {
    const own = await startTestController();
    const noSql = (res: TestResponse) => {
      expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
      expect(res.raw).not.toMatch(/select|delete|from |schema_migrations|relation|syntax|sqlstate|pg_|42P01/i);
    };
    try {
      await own.database.query('DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)');
      noSql(await own.request({ method: 'GET', url: '/readyz', key: null }));
      expect((await own.request({ method: 'GET', url: '/healthz', key: null })).status).toBe(200);
      await own.database.query('DROP TABLE schema_migrations');
      noSql(await own.request({ method: 'GET', url: '/readyz', key: null }));
      const state = own.controller.deps.state;
      const original = state.schemaStatus;
      state.schemaStatus = async () => {
        throw Object.assign(new Error('relation "schema_migrations" does not exist: SELECT max(version) FROM schema_migrations'), { code: '42P01' });
      };
      try {
        noSql(await own.request({ method: 'GET', url: '/readyz', key: null }));
      } finally {
        state.schemaStatus = original;
      }
      expect(own.logs.join('\n')).not.toMatch(/SELECT max\(version\)/);
    } finally {
      await own.close();
    }
  });

  const paramRoutes = routeTable.filter((r) => r.path.includes(':'));
  it.each(['%00', 'a%00b', 'x'.repeat(101), 'x'.repeat(500), '..%2F..', '%E2%80%AE', 'ns_00000000-0000-4000-8000-000000000000'])(
    'a malformed or unknown path id %s → 404 envelope on every route with a path parameter, never 5xx',
    async (bad) => {
      const wrong: string[] = [];
      for (const route of paramRoutes) {
        const res = await t.request({ method: route.method, url: urlWithParams(route, bad), ...(route.schemas.body ? { body: fixtureFor(route, w).body } : {}) });
        if (res.status !== 404 || res.body?.error?.code !== 'NOT_FOUND' || !REQUEST_ID.test(String(res.headers['x-request-id'])))
          wrong.push(`${route.operationId} → ${res.status} ${res.raw.slice(0, 120)}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it('a malformed percent-encoding (%ZZ, overlong UTF-8) is answered with the error envelope, never 5xx', async () => {
    for (const url of ['/namespaces/%ZZ', '/namespaces/%C0%80', `/namespaces/${w.nsA}/agents/%FF`]) {
      const res = await t.request({ method: 'GET', url });
      expect([400, 404], `${url} → ${res.status} ${res.raw.slice(0, 200)}`).toContain(res.status);
      expect(responseProblems(res, undefined, statusOf), url).toEqual([]);
      expect(res.raw).not.toContain('%ZZ');
    }
  });

  it('forged list cursors (NUL, lone surrogate, long) are refused with 400, never 5xx', async () => {
    const lists = routeTable.filter((r) => r.permission?.mode === 'filter' || r.schemas.querystring);
    let forged = 0;
    for (const route of lists) {
      const { url } = fixtureFor(route, w);
      const first = await t.request({ method: 'GET', url: `${url}?limit=1` });
      if (!first.body?.data?.nextCursor) continue;
      const decoded = JSON.parse(Buffer.from(first.body.data.nextCursor, 'base64url').toString('utf8'));
      for (const a of ['\u0000', 'x\u0000', 'x'.repeat(300)]) {
        const cursor = Buffer.from(JSON.stringify({ ...decoded, a }), 'utf8').toString('base64url');
        const res = await t.request({ method: 'GET', url: `${url}?limit=1&cursor=${cursor}` });
        forged++;
        // A query-string error points into the query: `/cursor`.
        expect(responseProblems(res, { limit: '1', cursor }, statusOf), `${route.operationId} ${JSON.stringify(a).slice(0, 12)}`).toEqual([]);
        expect(res.status).toBe(400);
      }
    }
    expect(forged).toBeGreaterThanOrEqual(15);
  });

  // The session exchange is public: its body is the credential, so it has no 401 to answer first.
  describe.each(bodyRoutes().filter((r) => r.auth !== 'public'))('$method $path: no key → 401 before the body is looked at', (route) => {
    it.each([
      ['an invalid body', '{"extra":1}', 'application/json'],
      ['malformed JSON', '{', 'application/json'],
      ['a non-JSON body', 'x', 'text/plain'],
      ['an oversized body', JSON.stringify({ x: 'x'.repeat(1_100_000) }), 'application/json'],
    ])('%s', async (_label, raw, type) => {
      const url = fixtureFor(route, w).url;
      for (const key of [null, `occ_${'x'.repeat(43)}`]) {
        expectError(await t.request({ method: route.method, url, key, body: raw, headers: { 'content-type': type } }), 401, 'UNAUTHENTICATED');
      }
    });
  });

  it('[V-1] input is validated before the exact Namespace/Agent check: a body error on a resource the caller cannot see → 400, not 404', async () => {
    const outsider = await newPrincipal(t);
    const hidden: string[] = [];
    // Public routes (the session exchange) guard no resource: nothing to hide behind 403/404.
    for (const route of bodyRoutes().filter((r) => r.auth !== 'public')) {
      const fixture = fixtureFor(route, w);
      const invalid = await send(t, route, { url: fixture.url, body: { ...(fixture.body as object), extra: 'x' } }, outsider.key);
      expectError(invalid, 400, 'INVALID_REQUEST');
      expect(details(invalid)).toContainEqual({ path: '/extra', code: 'UNKNOWN_FIELD' });
      const valid = await send(t, route, fixture, outsider.key);
      expect([403, 404], `${route.operationId} ${valid.raw.slice(0, 200)}`).toContain(valid.status);
      if (valid.status === 404) hidden.push(route.operationId);
      const missingNs = fixture.url.replace(w.nsA, `ns_${crypto.randomUUID()}`);
      if (missingNs !== fixture.url) expectError(await send(t, route, { url: missingNs, body: { extra: 'x' } }), 400, 'INVALID_REQUEST');
    }
    expect(hidden).toEqual(expect.arrayContaining(['updateAgent', 'createAgent', 'updateSecret']));
  });
});
