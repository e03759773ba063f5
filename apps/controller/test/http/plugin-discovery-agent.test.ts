import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexAgent, startDiscoveryController, type DiscoverySetup } from '../../../../test-support/discovery-setup.ts';
import { SPY_CATALOG } from '../../../../test-support/spy-discovery-driver.ts';
import type { TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * Existing-Agent plugin discovery: Agent read/update; a curated catalog needs no Secret; a
 * hosted one uses the Agent's bound codex_pat with the caller's and the Agent's secret:operate,
 * re-checked (with the binding) inside SecretDriver.withValue before the driver is called.
 */
function expectError(res: TestResponse, status: number, code: string) {
  expect(res.status, res.raw.slice(0, 300)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('existing-Agent plugin discovery', () => {
  let s: DiscoverySetup;
  let cfg: string;
  let ns: string;
  beforeAll(async () => {
    s = await startDiscoveryController();
    ns = s.w.nsA;
    cfg = s.w.cfgA;
  });
  afterAll(async () => s?.t.close());
  beforeEach(() => s.reset());

  const agentUrl = (id: string) => `/namespaces/${ns}/agents/${id}/plugins`;

  /** A codex Agent bound to a fresh Secret holding `value`, its principal granted operate, and a caller with read + operate. */
  async function hostedAgent(value: string) {
    const secret = await adminCreate(s.t, `/namespaces/${ns}/secrets`, { name: uniqueName('pat'), value });
    const agent = await codexAgent(s.t, ns, cfg, uniqueName('hosted'), secret.id);
    const agentGrant = await s.grantAgentOperate(ns, agent.id, secret.id);
    const caller = await newPrincipal(s.t);
    await grant(
      s.t,
      caller.id,
      [
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: ns },
    );
    const callerGrant = await grant(s.t, caller.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    return { secret, agent, caller, agentGrant, callerGrant, url: agentUrl(agent.id) };
  }

  it('[D-9] [D-11] [D-15] [D-2] a curated Agent: Agent read (or update) suffices; no Secret is involved', async () => {
    const reader = await newPrincipal(s.t);
    await grant(s.t, reader.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: ns, resource: { kind: 'agent', id: s.w.agentA2 } });
    const updater = await newPrincipal(s.t);
    await grant(s.t, updater.id, [{ action: 'update', resourceKind: 'agent' }], { namespaceId: ns, resource: { kind: 'agent', id: s.w.agentA2 } });
    for (const key of [reader.key, updater.key]) {
      const page = await s.post(agentUrl(s.w.agentA2), { q: 'i' }, key);
      expect(page.status, page.raw).toBe(200);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body.data.plugins).toEqual([SPY_CATALOG[0], SPY_CATALOG[1]]);
      const next = await s.post(agentUrl(s.w.agentA2), { q: 'i', cursor: page.body.data.nextCursor }, key);
      expect(next.body.data).toEqual({ plugins: [SPY_CATALOG[2]], nextCursor: null });
      const entry = await s.post(`${agentUrl(s.w.agentA2)}/details`, { pluginId: 'plugin_diffs' }, key);
      expect(entry.body.data).toEqual(SPY_CATALOG[0]);
    }
    expect(s.openclaw.calls.map((c) => c.request.credential)).toEqual(Array(6).fill(undefined));
    expect(s.secrets.reads).toEqual([]);
  });

  it('[D-9] without Agent read/update → 404, and no driver I/O; a missing Agent → 404', async () => {
    const stranger = await newPrincipal(s.t);
    await grant(s.t, stranger.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: ns, resource: { kind: 'agent', id: s.w.agentA } });
    expectError(await s.post(agentUrl(s.w.agentA2), {}, stranger.key), 404, 'NOT_FOUND');
    expectError(await s.post(`${agentUrl(s.w.agentA2)}/details`, { pluginId: 'diffs' }, stranger.key), 404, 'NOT_FOUND');
    expectError(await s.post(agentUrl(`agt_${crypto.randomUUID()}`), {}), 404, 'NOT_FOUND');
    // The literal segment `plugins` is never taken for an Agent id, and no Agent id can be `plugins`.
    expectError(await s.post(`/namespaces/${ns}/agents/plugins/plugins`, {}), 404, 'NOT_FOUND');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  it('[D-2] [D-4] [D-10] a hosted Agent: its bound codex_pat is read and handed to the driver', async () => {
    const h = await hostedAgent('bound-pat-value-1');
    const res = await s.post(h.url, { q: 'lin' }, h.caller.key);
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.plugins).toEqual([SPY_CATALOG[1]]);
    const entry = await s.post(`${h.url}/details`, { pluginId: 'plugin_github' }, h.caller.key);
    expect(entry.body.data).toEqual(SPY_CATALOG[2]);
    expect(s.codex.calls.map((c) => c.request)).toEqual([
      { credential: 'bound-pat-value-1', q: 'lin' },
      { credential: 'bound-pat-value-1', pluginId: 'plugin_github' },
    ]);
    expect(s.secrets.reads).toEqual([
      { namespaceId: ns, secretId: h.secret.id },
      { namespaceId: ns, secretId: h.secret.id },
    ]);
  });

  it("[D-2] [D-12] the caller's and the Agent's secret:operate are both required before anything is read", async () => {
    const h = await hostedAgent('bound-pat-value-2');
    const readOnly = await newPrincipal(s.t);
    await grant(s.t, readOnly.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: ns });
    expectError(await s.post(h.url, {}, readOnly.key), 404, 'NOT_FOUND');
    await grant(s.t, readOnly.id, [{ action: 'read', resourceKind: 'secret' }], { namespaceId: ns });
    expectError(await s.post(h.url, {}, readOnly.key), 403, 'FORBIDDEN');
    await s.t.request({ method: 'DELETE', url: `/iam/access-bindings/${h.agentGrant}` });
    const agentDenied = await s.post(h.url, {}, h.caller.key);
    expectError(agentDenied, 403, 'FORBIDDEN');
    expect(agentDenied.body.error.message).toMatch(/service principal/);
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  it('[D-9] a codex Agent with no bound Secret → 409 RESOURCE_CONFLICT, nothing read', async () => {
    const unbound = await codexAgent(s.t, ns, cfg, uniqueName('unbound'));
    expectError(await s.post(agentUrl(unbound.id), {}), 409, 'RESOURCE_CONFLICT');
    expectError(await s.post(`${agentUrl(unbound.id)}/details`, { pluginId: 'x' }), 409, 'RESOURCE_CONFLICT');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 0 });
  });

  /** Stages an admin request (expected to answer `status`) after the Secret is read and before the discovery callback. */
  const inside = (method: 'DELETE' | 'PATCH', url: string, status: number, body?: unknown) => {
    s.secrets.beforeUse = async () => {
      s.secrets.beforeUse = null;
      expect((await s.t.request({ method, url, ...(body ? { body } : {}) })).status).toBe(status);
    };
  };

  it("[D-10] [D-12] the caller's grant revoked between the checks and the read → 403, the driver is not called", async () => {
    const h = await hostedAgent('bound-pat-value-3');
    inside('DELETE', `/iam/access-bindings/${h.callerGrant}`, 204);
    expectError(await s.post(h.url, { q: 'x' }, h.caller.key), 403, 'FORBIDDEN');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 1 });
  });

  it("[D-10] the Agent's grant revoked inside withValue → 403, the driver is not called", async () => {
    const h = await hostedAgent('bound-pat-value-4');
    inside('DELETE', `/iam/access-bindings/${h.agentGrant}`, 204);
    expectError(await s.post(`${h.url}/details`, { pluginId: 'plugin_linear' }, h.caller.key), 403, 'FORBIDDEN');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 1 });
  });

  it('[D-10] the binding changed inside withValue → 409, the driver is not called; the next request uses the new binding', async () => {
    const h = await hostedAgent('bound-pat-value-5');
    const other = await adminCreate(s.t, `/namespaces/${ns}/secrets`, { name: uniqueName('pat'), value: 'bound-pat-value-6' });
    await s.grantAgentOperate(ns, h.agent.id, other.id);
    await grant(s.t, h.caller.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: other.id } });
    inside('PATCH', `/namespaces/${ns}/agents/${h.agent.id}`, 200, { harnessAuth: { method: 'codex_pat', secretId: other.id } });
    expectError(await s.post(h.url, {}, h.caller.key), 409, 'RESOURCE_CONFLICT');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 1 });
    expect((await s.post(h.url, {}, h.caller.key)).status).toBe(200);
    expect(s.codex.calls.map((c) => c.request.credential)).toEqual(['bound-pat-value-6']);
  });

  it('[D-10] the Agent deleted inside withValue → 404, the driver is not called', async () => {
    const h = await hostedAgent('bound-pat-value-7');
    inside('DELETE', `/namespaces/${ns}/agents/${h.agent.id}`, 204);
    expectError(await s.post(h.url, {}, h.caller.key), 404, 'NOT_FOUND');
    expect(s.io()).toEqual({ driverCalls: 0, secretReads: 1 });
  });

  it('a client that disconnects aborts the driver call (its AbortSignal fires)', async () => {
    const h = await hostedAgent('bound-pat-value-8');
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
    let entered!: () => void;
    const inDriver = new Promise<void>((resolve) => (entered = resolve));
    s.codex.script = (call) =>
      new Promise((_resolve, reject) => {
        call.signal.addEventListener('abort', () => (aborted(), reject(call.signal.reason)), { once: true });
        entered();
      });
    await s.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = s.t.app.server.address() as AddressInfo;
    const body = JSON.stringify({ q: 'slow' });
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: h.url,
      headers: { authorization: `Bearer ${h.caller.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await inDriver;
    expect(s.codex.calls[0]!.signal.aborted).toBe(false);
    req.destroy();
    await sawAbort;
    expect(s.codex.calls[0]!.signal.aborted).toBe(true);
  });
});
