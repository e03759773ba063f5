import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PluginDiscoveryError, type PluginDiscoveryFailure } from '../../src/core/ports/plugin-driver.ts';
import { startDiscoveryController, type DiscoverySetup } from '../../../../test-support/discovery-setup.ts';
import { SPY_CATALOG } from '../../../../test-support/spy-discovery-driver.ts';
import type { TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * Create-time plugin discovery: the order of checks (authorization → driver support → the
 * Secret's value → the driver), proven with spies that show what was NOT called; the mapping of
 * driver failures; the refusal of answers outside the contract.
 */
const PAT = 'codex-pat-transient-0123456789';
const noStore = (res: TestResponse) => expect(res.headers['cache-control']).toBe('no-store');

function expectError(res: TestResponse, status: number, code: string, detail?: { path: string; code: string }) {
  expect(res.status, res.raw.slice(0, 300)).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (detail) expect(res.body.error.details).toContainEqual(detail);
  noStore(res);
}

describe('create-time plugin discovery', () => {
  let s: DiscoverySetup;
  let list: string;
  let details: string;
  let secretRef: { kind: 'secret'; namespaceId: string; id: string };
  beforeAll(async () => {
    s = await startDiscoveryController();
    list = `/namespaces/${s.w.nsA}/agents/plugins`;
    details = `${list}/details`;
    secretRef = { kind: 'secret', namespaceId: s.w.nsA, id: s.w.secretA };
  });
  afterAll(async () => s?.t.close());
  beforeEach(() => s.reset());

  it('[D-5] [D-6] [D-7] a transient PAT goes straight to the driver; the answer is the safe page, no-store; no Secret is read', async () => {
    const res = await s.post(list, { harness: 'codex', accessToken: PAT, q: 'lin' });
    expect(res.status, res.raw).toBe(200);
    noStore(res);
    expect(res.body.data).toEqual({ plugins: [SPY_CATALOG[1]], nextCursor: null });
    expect(s.codex.calls).toHaveLength(1);
    expect(s.codex.calls[0]!.request).toEqual({ credential: PAT, q: 'lin' });
    expect(s.secrets.reads).toEqual([]);
  });

  it('[D-4] [D-7] [D-13] a same-Namespace secretRef reads the owned current value (re-read on every request, after a rotation)', async () => {
    const secret = await adminCreate(s.t, `/namespaces/${s.w.nsA}/secrets`, { name: uniqueName('pat'), value: 'first-pat-value' });
    const ref = { kind: 'secret', namespaceId: s.w.nsA, id: secret.id };
    expect((await s.post(list, { harness: 'codex', secretRef: ref })).status).toBe(200);
    await s.t.request({ method: 'PATCH', url: `/namespaces/${s.w.nsA}/secrets/${secret.id}`, body: { value: 'rotated-pat-value' } });
    const res = await s.post(details, { harness: 'codex', secretRef: ref, pluginId: 'plugin_linear' });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data).toEqual(SPY_CATALOG[1]);
    expect(s.codex.calls.map((c) => c.request.credential)).toEqual(['first-pat-value', 'rotated-pat-value']);
    expect(s.secrets.reads).toEqual([
      { namespaceId: s.w.nsA, secretId: secret.id },
      { namespaceId: s.w.nsA, secretId: secret.id },
    ]);
  });

  it('[D-7] [D-11] [D-15] a credential-free (curated) catalog: search, opaque cursors that page the same query, details', async () => {
    const first = await s.post(list, { harness: 'openclaw', q: 'i' });
    expect(first.status, first.raw).toBe(200);
    expect(first.body.data.plugins.map((p: { id: string }) => p.id)).toEqual(['diffs', 'linear']);
    const cursor = first.body.data.nextCursor;
    expect(typeof cursor).toBe('string');
    const second = await s.post(list, { harness: 'openclaw', q: 'i', cursor });
    expect(second.body.data).toEqual({ plugins: [SPY_CATALOG[2]], nextCursor: null });
    // A cursor from one query is refused for another: 400 at /cursor.
    expectError(await s.post(list, { harness: 'openclaw', q: 'other', cursor }), 400, 'INVALID_REQUEST', { path: '/cursor', code: 'INVALID_VALUE' });
    const entry = await s.post(details, { harness: 'openclaw', pluginId: 'diffs' });
    expect(entry.body.data).toEqual(SPY_CATALOG[0]);
    expect(s.openclaw.calls.every((c) => c.request.credential === undefined)).toBe(true);
    expect(s.secrets.reads).toEqual([]);
  });

  it('[D-1] [D-8] authorizes Agent create on the Namespace, then operate on the exact Secret — no Secret read, no driver I/O before', async () => {
    const { t, w } = s;
    const outsider = await newPrincipal(t);
    const creator = await newPrincipal(t);
    await grant(t, creator.id, [{ action: 'create', resourceKind: 'agent' }], { namespaceId: w.nsA });
    const reader = await newPrincipal(t);
    await grant(
      t,
      reader.id,
      [
        { action: 'create', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: w.nsA },
    );
    const operatorOnly = await newPrincipal(t);
    await grant(
      t,
      operatorOnly.id,
      [
        { action: 'operate', resourceKind: 'secret' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: w.nsA },
    );

    for (const harness of ['codex', 'openclaw']) {
      expectError(await s.post(list, { harness, q: 'x' }, outsider.key), 404, 'NOT_FOUND');
      expectError(await s.post(list, { harness }, operatorOnly.key), 403, 'FORBIDDEN');
    }
    expectError(await s.post(list, { harness: 'codex', secretRef }, outsider.key), 404, 'NOT_FOUND');
    expectError(await s.post(list, { harness: 'codex', secretRef }, operatorOnly.key), 403, 'FORBIDDEN');
    // Agent create without operate on the Secret: invisible → 404, visible → 403.
    expectError(await s.post(details, { harness: 'codex', secretRef, pluginId: 'x' }, creator.key), 404, 'NOT_FOUND', { path: '/secretRef/id', code: 'INVALID_VALUE' });
    expectError(await s.post(list, { harness: 'codex', secretRef }, reader.key), 403, 'FORBIDDEN', { path: '/secretRef/id', code: 'INVALID_VALUE' });
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });

    // The same creator with operate on that exact Secret (and only that one) gets through.
    await grant(t, creator.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: w.nsA, resource: { kind: 'secret', id: w.secretA } });
    expect((await s.post(list, { harness: 'codex', secretRef }, creator.key)).status).toBe(200);
    expectError(await s.post(list, { harness: 'codex', secretRef: { ...secretRef, id: w.secretA2 } }, creator.key), 404, 'NOT_FOUND');
    expect(s.io()).toEqual({ driverCalls: 1, secretReads: 1 });
  });

  it("[D-1] [D-7] another Namespace's Secret → 400 before any Secret is looked up or read", async () => {
    const { w } = s;
    expectError(await s.post(list, { harness: 'codex', secretRef: { kind: 'secret', namespaceId: w.nsB, id: w.secretB } }), 400, 'INVALID_REQUEST', {
      path: '/secretRef/namespaceId',
      code: 'CROSS_NAMESPACE_REFERENCE',
    });
    // Named as if it were this Namespace's: still refused as a cross-Namespace reference.
    expectError(await s.post(list, { harness: 'codex', secretRef: { kind: 'secret', namespaceId: w.nsA, id: w.secretB } }), 400, 'INVALID_REQUEST', {
      path: '/secretRef/id',
      code: 'CROSS_NAMESPACE_REFERENCE',
    });
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  it('[D-12] a missing Secret → 404, an unavailable secret backend → 503 DEPENDENCY_UNAVAILABLE; neither reaches the driver', async () => {
    const missing = { ...secretRef, id: `sec_${crypto.randomUUID()}` };
    expectError(await s.post(list, { harness: 'codex', secretRef: missing }), 404, 'NOT_FOUND', { path: '/secretRef/id', code: 'INVALID_VALUE' });
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
    s.secrets.unavailable = true;
    const res = await s.post(list, { harness: 'codex', secretRef });
    expectError(res, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(res.raw).not.toContain('unreachable');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 1 });
  });

  it('[V-1] a credential that does not suit the driver → 400 naming the field, before any I/O', async () => {
    expectError(await s.post(list, { harness: 'openclaw', accessToken: PAT }), 400, 'INVALID_REQUEST', { path: '/accessToken', code: 'UNSUPPORTED_FIELD' });
    expectError(await s.post(list, { harness: 'openclaw', secretRef }), 400, 'INVALID_REQUEST', { path: '/secretRef', code: 'UNSUPPORTED_FIELD' });
    expectError(await s.post(list, { harness: 'codex' }), 400, 'INVALID_REQUEST', { path: '/accessToken', code: 'REQUIRED' });
    expectError(await s.post(details, { harness: 'codex', pluginId: 'x' }), 400, 'INVALID_REQUEST', { path: '/accessToken', code: 'REQUIRED' });
    expectError(await s.post(list, { harness: 'codex', accessToken: PAT, secretRef }), 400, 'INVALID_REQUEST', { path: '/secretRef', code: 'INVALID_COMBINATION' });
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  it('[V-1] unknown fields (a client-supplied accountId) and bad shapes → 400 before any I/O, even for a caller who may not see the Namespace', async () => {
    const outsider = await newPrincipal(s.t);
    const agentUrl = `/namespaces/${s.w.nsA}/agents/${s.w.agentA}/plugins`;
    const cases: [string, unknown, string, string][] = [
      [list, { harness: 'codex', accessToken: PAT, accountId: 'acct_1' }, '/accountId', 'UNKNOWN_FIELD'],
      [details, { harness: 'openclaw', pluginId: 'x', q: 'no q on details' }, '/q', 'UNKNOWN_FIELD'],
      [list, { harness: 'codex', secretRef: { ...secretRef, value: 'x' } }, '/secretRef/value', 'UNKNOWN_FIELD'],
      [list, { harness: 'claude' }, '/harness', 'INVALID_VALUE'],
      [list, { harness: 'codex', accessToken: 'x'.repeat(16385) }, '/accessToken', 'TOO_LONG'],
      [list, { harness: 'openclaw', q: 'x'.repeat(1025) }, '/q', 'TOO_LONG'],
      [list, { harness: 'openclaw', cursor: 'x'.repeat(8193) }, '/cursor', 'TOO_LONG'],
      [details, { harness: 'openclaw', pluginId: '' }, '/pluginId', 'TOO_SHORT'],
      [agentUrl, { harness: 'codex' }, '/harness', 'UNKNOWN_FIELD'],
      [agentUrl, { accessToken: PAT }, '/accessToken', 'UNKNOWN_FIELD'],
      [`${agentUrl}/details`, { pluginId: 'x', secretRef }, '/secretRef', 'UNKNOWN_FIELD'],
    ];
    for (const [url, body, path, code] of cases) {
      for (const key of [undefined, outsider.key]) expectError(await s.post(url, body, key), 400, 'INVALID_REQUEST', { path, code });
    }
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  it('[D-13] a Namespace that does not exist → 404 (no I/O); discovery writes no audit event and changes no row', async () => {
    expectError(await s.post(`/namespaces/ns_${crypto.randomUUID()}/agents/plugins`, { harness: 'openclaw' }), 404, 'NOT_FOUND');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
    const snapshot = async () => {
      const tables = (await s.t.database.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()')).rows;
      const rows: string[] = [];
      for (const { tablename } of tables) {
        // api_keys.last_used_at moves on every authenticated request: not discovery's doing.
        if (tablename === 'api_keys') continue;
        rows.push(...(await s.t.database.query<{ t: string }>(`SELECT row_to_json(x)::text AS t FROM "${tablename}" x`)).rows.map((r) => `${tablename} ${r.t}`));
      }
      return rows.sort();
    };
    const before = await snapshot();
    await s.grantAgentOperate(s.w.nsA, s.w.agentA, s.w.secretA);
    const grantsMade = await snapshot();
    const agentA = `/namespaces/${s.w.nsA}/agents/${s.w.agentA}/plugins`;
    for (const [url, body] of [
      [list, { harness: 'codex', secretRef }],
      [list, { harness: 'codex', accessToken: PAT }],
      [details, { harness: 'openclaw', pluginId: 'diffs' }],
      [agentA, { q: 'i' }],
      [`${agentA}/details`, { pluginId: 'diffs' }],
      [list, { harness: 'codex' }],
    ] as const) {
      expect((await s.post(url, body)).status).toBeLessThan(500);
    }
    expect(await snapshot()).toEqual(grantsMade);
    expect(grantsMade.length).toBeGreaterThan(before.length);
  });

  const FAILURES: [PluginDiscoveryFailure | 'crash', number, string, { path: string; code: string } | undefined][] = [
    ['credentials_rejected', 400, 'PLUGIN_DISCOVERY_CREDENTIALS_REJECTED', { path: '/accessToken', code: 'INVALID_VALUE' }],
    ['credential_malformed', 400, 'PLUGIN_DISCOVERY_CREDENTIALS_REJECTED', { path: '/accessToken', code: 'INVALID_FORMAT' }],
    ['rate_limited', 429, 'PLUGIN_DISCOVERY_RATE_LIMITED', undefined],
    ['invalid_response', 503, 'PLUGIN_DISCOVERY_INVALID_RESPONSE', undefined],
    ['unavailable', 503, 'PLUGIN_DISCOVERY_UNAVAILABLE', undefined],
    ['not_found', 404, 'NOT_FOUND', { path: '/pluginId', code: 'INVALID_VALUE' }],
    ['invalid_cursor', 400, 'INVALID_REQUEST', { path: '/cursor', code: 'INVALID_VALUE' }],
    ['crash', 503, 'PLUGIN_DISCOVERY_UNAVAILABLE', undefined],
  ];
  it.each(FAILURES)('[D-17] a driver failure %s → %i %s with a fixed message, no upstream text, no-store', async (reason, status, code, detail) => {
    const upstreamText = `upstream says: account acct_42 is over quota ${PAT}`;
    s.codex.script = () => {
      if (reason === 'crash') throw new TypeError(upstreamText);
      throw Object.assign(new PluginDiscoveryError(reason), { upstream: upstreamText });
    };
    const body = reason === 'not_found' ? { harness: 'codex', accessToken: PAT, pluginId: 'plugin_gone' } : { harness: 'codex', accessToken: PAT, cursor: 'c1' };
    const res = await s.post(reason === 'not_found' ? details : list, body);
    expectError(res, status, code, detail);
    expect(res.raw).not.toContain('upstream says');
    expect(res.raw).not.toContain(PAT);
    expect(res.body.error.message).not.toMatch(/acct_42|quota/);
    expect(s.t.logs.join('\n')).not.toContain('upstream says');
  });

  it('[D-17] a credential refused for its form says no catalog was contacted; one a catalog refused says the catalog did', async () => {
    for (const [reason, message, code] of [
      ['credential_malformed', 'The credential is not a well-formed personal access token, so no plugin catalog was contacted.', 'INVALID_FORMAT'],
      ['credentials_rejected', 'The plugin catalog rejected the credential.', 'INVALID_VALUE'],
    ] as const) {
      s.codex.script = () => {
        throw new PluginDiscoveryError(reason);
      };
      const res = await s.post(list, { harness: 'codex', accessToken: PAT });
      expect(res.status, res.raw).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'PLUGIN_DISCOVERY_CREDENTIALS_REJECTED', message, details: [{ path: '/accessToken', code }] });
    }
  });

  const logo = { ...SPY_CATALOG[0]!, logoUrl: 'http://insecure.example/logo.png' };
  it.each([
    ['an extra field', { plugins: [{ ...SPY_CATALOG[0], downloadUrl: 'https://cdn.example/artifact.tgz' }], nextCursor: null }],
    ['a non-HTTPS logo', { plugins: [logo], nextCursor: null }],
    ['a missing field', { plugins: [{ id: 'x', name: 'x', available: true }], nextCursor: null }],
    ['more than 200 entries', { plugins: Array.from({ length: 201 }, () => SPY_CATALOG[0]), nextCursor: null }],
    ['a credential echo', { plugins: [{ ...SPY_CATALOG[0], description: `token ${PAT}` }], nextCursor: null }],
    ['no page at all', 'a string'],
  ])('[D-6] [D-17] an answer with %s is refused: 503 PLUGIN_DISCOVERY_INVALID_RESPONSE, nothing of it served', async (_label, answer) => {
    s.codex.script = () => answer;
    const res = await s.post(list, { harness: 'codex', accessToken: PAT });
    expectError(res, 503, 'PLUGIN_DISCOVERY_INVALID_RESPONSE');
    for (const leaked of ['artifact.tgz', 'insecure.example', PAT]) expect(res.raw).not.toContain(leaked);
  });

  it('[D-6] details: an entry outside the contract is refused the same way', async () => {
    s.openclaw.script = () => ({ ...SPY_CATALOG[1], tools: [{ id: 't', ownerId: 'o', name: 'n', secretParam: 'x' }] });
    expectError(await s.post(details, { harness: 'openclaw', pluginId: 'linear' }), 503, 'PLUGIN_DISCOVERY_INVALID_RESPONSE');
  });

  it('[D-13] no transaction is held while the driver works: a rotation of the Secret in use completes meanwhile', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inDriver = new Promise<void>((resolve) => (entered = resolve));
    s.codex.script = async () => {
      entered();
      await released;
      return undefined;
    };
    const pending = s.post(list, { harness: 'codex', secretRef });
    await inDriver;
    const rotated = await s.t.request({ method: 'PATCH', url: `/namespaces/${s.w.nsA}/secrets/${s.w.secretA}`, body: { value: 'rotated-while-discovering' } });
    expect(rotated.status).toBe(200);
    release();
    const res = await pending;
    expect(res.status, res.raw).toBe(200);
    // The read preceded the rotation: acceptable (non-transactional).
    expect(s.codex.calls[0]!.request.credential).toBe('world-secret-value');
  });
});

describe('discovery without PluginDriver support', () => {
  let s: DiscoverySetup;
  beforeAll(async () => {
    s = await startDiscoveryController({ discovery: { codex: null } });
  });
  afterAll(async () => s?.t.close());
  beforeEach(() => s.reset());

  it('[D-3] [D-8] an unsupported driver → 501 NOT_IMPLEMENTED after authorization, and no Secret is read', async () => {
    const { w } = s;
    const list = `/namespaces/${w.nsA}/agents/plugins`;
    const secretRef = { kind: 'secret', namespaceId: w.nsA, id: w.secretA };
    for (const body of [{ harness: 'codex', secretRef }, { harness: 'codex', accessToken: PAT }, { harness: 'codex' }]) {
      expectError(await s.post(list, body), 501, 'NOT_IMPLEMENTED');
    }
    expectError(await s.post(`${list}/details`, { harness: 'codex', secretRef, pluginId: 'x' }), 501, 'NOT_IMPLEMENTED');
    // Authorization still comes first: Agent create, then operate on the exact Secret.
    const creator = await newPrincipal(s.t);
    expectError(await s.post(list, { harness: 'codex', secretRef }, creator.key), 404, 'NOT_FOUND');
    await grant(
      s.t,
      creator.id,
      [
        { action: 'create', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: w.nsA },
    );
    expectError(await s.post(list, { harness: 'codex', secretRef }, creator.key), 403, 'FORBIDDEN');
    await grant(s.t, creator.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: w.nsA });
    expectError(await s.post(list, { harness: 'codex', secretRef }, creator.key), 501, 'NOT_IMPLEMENTED');
    // An existing Agent bound to a Secret: the binding is authorized, then 501 — its Secret is never opened.
    await s.grantAgentOperate(w.nsA, w.agentA, w.secretA);
    const agentA = `/namespaces/${w.nsA}/agents/${w.agentA}/plugins`;
    expectError(await s.post(agentA, {}), 501, 'NOT_IMPLEMENTED');
    expectError(await s.post(`${agentA}/details`, { pluginId: 'x' }), 501, 'NOT_IMPLEMENTED');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
    // The other harness still discovers.
    expect((await s.post(list, { harness: 'openclaw' })).status).toBe(200);
  });

  it('[D-3] a harness with no PluginDriver at all → 501, no Secret read', async () => {
    const bare = await startDiscoveryController({ pluginDrivers: { codex: 'none' } });
    try {
      const { w } = bare;
      const res = await bare.post(`/namespaces/${w.nsA}/agents/plugins`, { harness: 'codex', secretRef: { kind: 'secret', namespaceId: w.nsA, id: w.secretA } });
      expectError(res, 501, 'NOT_IMPLEMENTED');
      expect(bare.io()).toEqual({ driverCalls: 0, secretReads: 0 });
    } finally {
      await bare.t.close();
    }
  });
});
