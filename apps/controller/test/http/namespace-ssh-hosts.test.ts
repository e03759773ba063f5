import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, RESOURCE_KINDS } from '@occ/contracts';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import { RuntimeStartDenied } from '../../src/core/ports/runtime-start.ts';
import { createComputeHostDirectory } from '../../src/core/use-cases/namespace-ssh-hosts.ts';
import { createRuntimeStartAuthority } from '../../src/core/use-cases/runtime-start.ts';
import { createLocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { createSshComputeDriver } from '../../src/drivers/compute/ssh/index.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * PUT/GET/DELETE /namespaces/:ns/ssh-host (docs/compute-ssh.md, "Hosts") against the real ssh
 * ComputeDriver's check, which connects nowhere. Keys are real ed25519 pairs from ssh-keygen.
 */
const ALL = RESOURCE_KINDS.flatMap((resourceKind) => ACTIONS.map((action) => ({ action, resourceKind })));

interface KeyPair {
  privateKey: string;
  publicKey: string;
  /** The base64 lines between the armour: what must never travel anywhere. */
  bodyLines: string[];
}

function keyPair(dir: string, name: string): KeyPair {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-t', 'ed25519', '-N', '', '-C', `occ-test-${name}`, '-f', file, '-q']);
  const privateKey = readFileSync(file, 'utf8');
  const bodyLines = privateKey.split('\n').filter((line) => line && !line.startsWith('-----'));
  return { privateKey, publicKey: readFileSync(`${file}.pub`, 'utf8').trim(), bodyLines };
}

describe('a Namespace’s SSH host over HTTP', () => {
  let dir: string;
  let t: TestController;
  let client: KeyPair;
  let host: KeyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'occ-ssh-hosts-'));
    client = keyPair(dir, 'client');
    host = keyPair(dir, 'host');
    expect(client.bodyLines.length).toBeGreaterThan(2);
    const ssh = createSshComputeDriver({
      settings: { workspace: '/opt/occ', agentsDir: null, defaultHost: null },
      rootDir: join(dir, 'ssh-root'),
      probeGateway: async () => false,
    });
    t = await startTestController({ compute: ssh });
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const url = (ns: string) => `/namespaces/${ns}/ssh-host`;
  const newNamespace = async (c: TestController = t) => (await adminCreate(c, '/namespaces', { name: uniqueName('ns') })).id as string;
  const newSecret = async (ns: string, value: string, c: TestController = t) => (await adminCreate(c, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value })).id as string;
  const body = (secretId: string, overrides: Record<string, string> = {}) => ({
    address: 'agents.example.test:2222',
    user: 'occ-agents',
    hostKey: host.publicKey,
    privateKeySecretId: secretId,
    ...overrides,
  });
  const put = (ns: string, b: unknown, key?: string, c: TestController = t) => c.request({ method: 'PUT', url: url(ns), body: b, ...(key ? { key } : {}) });
  const hostRow = async (ns: string) => (await t.database.query('SELECT * FROM namespace_ssh_hosts WHERE namespace_id = $1', [ns])).rows[0] ?? null;
  const auditRows = async (ns: string) =>
    (
      await t.database.query<{ action: string; details: Record<string, unknown>; t: string }>(
        "SELECT action, details, row_to_json(a)::text AS t FROM audit_events a WHERE namespace_id = $1 AND action LIKE 'ssh_hosts.%' ORDER BY seq",
        [ns],
      )
    ).rows;
  /** A Namespace with its host saved, and the key Secret. */
  async function withHost(): Promise<{ ns: string; secret: string; saved: any }> {
    const ns = await newNamespace();
    const secret = await newSecret(ns, client.privateKey);
    const res = await put(ns, body(secret));
    expect(res.status, res.raw).toBe(200);
    return { ns, secret, saved: res.body.data };
  }
  const expectNoKey = (where: string, text: string) => {
    for (const line of client.bodyLines) expect(text.includes(line), `${where} holds a line of the private key`).toBe(false);
    expect(text).not.toContain('PRIVATE KEY');
  };
  const expectError = (res: TestResponse, status: number, code: string) => {
    expect(res.status, res.raw).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  it('PUT saves the host (200), GET returns it, and one audit event names the host and the key Secret — the private key is in no answer, audit row, table row or log line', async () => {
    const ns = await newNamespace();
    const secret = await newSecret(ns, client.privateKey);
    const res = await put(ns, body(secret));
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data).toEqual({
      namespaceId: ns,
      address: 'agents.example.test:2222',
      user: 'occ-agents',
      hostKey: host.publicKey,
      privateKeySecretId: secret,
      updatedAt: expect.any(String),
    });
    const got = await t.request({ method: 'GET', url: url(ns) });
    expect(got.status, got.raw).toBe(200);
    expect(got.body.data).toEqual(res.body.data);

    const events = await auditRows(ns);
    expect(events.map((e) => e.action)).toEqual(['ssh_hosts.put']);
    expect(events[0]!.details).toEqual({ address: 'agents.example.test:2222', user: 'occ-agents', hostKey: host.publicKey, privateKeySecretId: secret });
    expect(JSON.parse(events[0]!.t)).toMatchObject({ resource_kind: 'namespace', resource_id: ns, outcome: 'success' });

    // Saved again: replaced in place, audited again.
    const moved = await put(ns, body(secret, { address: '[::1]:22', hostKey: 'SHA256:'.padEnd(50, 'B') }));
    expect(moved.status, moved.raw).toBe(200);
    expect((await t.request({ method: 'GET', url: url(ns) })).body.data).toMatchObject({ address: '[::1]:22', hostKey: 'SHA256:'.padEnd(50, 'B') });
    expect((await auditRows(ns)).map((e) => e.action)).toEqual(['ssh_hosts.put', 'ssh_hosts.put']);

    for (const [where, text] of [
      ['the PUT answer', res.raw],
      ['the GET answer', got.raw],
      ['the second PUT answer', moved.raw],
      ...(await auditRows(ns)).map((e) => ['an audit row', e.t]),
      ['the host row', JSON.stringify(await hostRow(ns))],
      ['the logs', t.logs.join('\n')],
    ] as const) {
      expectNoKey(where, text);
    }
  });

  it('each field the ssh driver cannot use → 400 naming it; nothing is written, no event, and the message carries no value', async () => {
    const ns = await newNamespace();
    const secret = await newSecret(ns, client.privateKey);
    const notAKey = `not a private key ${uniqueName('v')}`;
    const badSecret = await newSecret(ns, notAKey);
    const elsewhere = await newNamespace();
    const foreign = await newSecret(elsewhere, client.privateKey);
    const cases: [string, ReturnType<typeof body>, string, string][] = [
      ['address', body(secret, { address: 'bad host!' }), '/address', 'UNSUPPORTED_VALUE'],
      ['port', body(secret, { address: 'agents.example.test:70000' }), '/address', 'UNSUPPORTED_VALUE'],
      ['user', body(secret, { user: 'Root' }), '/user', 'UNSUPPORTED_VALUE'],
      ['host key', body(secret, { hostKey: 'not a key' }), '/hostKey', 'UNSUPPORTED_VALUE'],
      ['a Secret that holds no private key', body(badSecret), '/privateKeySecretId', 'UNSUPPORTED_VALUE'],
      ['a Secret of another Namespace', body(foreign), '/privateKeySecretId', 'CROSS_NAMESPACE_REFERENCE'],
    ];
    for (const [label, b, path, code] of cases) {
      const res = await put(ns, b);
      expect(res.status, `${label}: ${res.raw}`).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details, label).toEqual([{ path, code }]);
      expect(res.raw, label).not.toContain(notAKey);
      expectNoKey(label, res.raw);
    }
    // A Secret that does not exist: 404 at the field.
    const missing = await put(ns, body('sec_00000000-0000-4000-8000-000000000000'));
    expectError(missing, 404, 'NOT_FOUND');
    expect(missing.body.error.details).toEqual([{ path: '/privateKeySecretId', code: 'INVALID_VALUE' }]);
    // A body outside the schema never reaches the driver.
    const shape = await put(ns, { ...body(secret), user: 'u'.repeat(33) });
    expectError(shape, 400, 'INVALID_REQUEST');
    expect(shape.body.error.details[0].path).toBe('/user');

    expectError(await t.request({ method: 'GET', url: url(ns) }), 404, 'NOT_FOUND');
    expect(await hostRow(ns)).toBeNull();
    expect(await auditRows(ns)).toEqual([]);
    expect(t.logs.join('\n')).not.toContain(notAKey);
  });

  it('a Namespace administrator without installation:administer reads the host but may not save or remove it (403, nothing written)', async () => {
    const { ns, secret, saved } = await withHost();
    const admin = await newPrincipal(t);
    await grant(t, admin.id, ALL, { namespaceId: ns });
    expectError(await put(ns, body(secret, { address: 'elsewhere.example.test' }), admin.key), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'DELETE', url: url(ns), key: admin.key }), 403, 'FORBIDDEN');
    // Another Namespace's administrator cannot even read it.
    const outsider = await newPrincipal(t);
    await grant(t, outsider.id, ALL, { namespaceId: await newNamespace() });
    expectError(await t.request({ method: 'GET', url: url(ns), key: outsider.key }), 404, 'NOT_FOUND');
    expectError(await put(ns, body(secret), outsider.key), 403, 'FORBIDDEN');

    const read = await t.request({ method: 'GET', url: url(ns), key: admin.key });
    expect(read.status, read.raw).toBe(200);
    expect(read.body.data).toEqual(saved);
    expect((await auditRows(ns)).map((e) => e.action)).toEqual(['ssh_hosts.put']);
  });

  it('an installation whose ComputeDriver places no Agent on an SSH host (local, or none) → 409 SSH_HOSTS_UNSUPPORTED naming it, nothing written', async () => {
    const localRoot = mkdtempSync(join(dir, 'local-'));
    const local = createLocalComputeDriver({
      rootDir: localRoot,
      launch: () => {
        throw new Error('no runtime starts in this test');
      },
      probeGateway: async () => false,
    });
    const scripted: ComputeDriver = { ...createScriptedCompute({ id: 'scripted-without-hosts' }) };
    delete scripted.validateSshHost;
    for (const [compute, named] of [
      [local, '(local)'],
      [null, '(none)'],
      [scripted, '(scripted-without-hosts)'],
    ] as const) {
      const other = await startTestController({ compute });
      try {
        const ns = await newNamespace(other);
        const secret = await newSecret(ns, client.privateKey, other);
        const res = await put(ns, body(secret), undefined, other);
        expectError(res, 409, 'SSH_HOSTS_UNSUPPORTED');
        expect(res.body.error.message).toContain(named);
        expect(res.body.error.message).toContain('OCC_COMPUTE_DRIVER=ssh');
        expect(res.body.error.message).toContain('docs/compute-ssh.md');
        expectError(await other.request({ method: 'GET', url: url(ns) }), 404, 'NOT_FOUND');
        expect((await other.database.query("SELECT count(*)::int AS n FROM audit_events WHERE action LIKE 'ssh_hosts.%'")).rows[0]).toEqual({ n: 0 });
      } finally {
        await other.close();
      }
    }
  });

  it('while an Agent of the Namespace may run on its host — a deploy under way, an active revision, a stop not finished, a removal queued — PUT and DELETE → 409 NAMESPACE_AGENTS_ACTIVE naming it; the host stays', async () => {
    const { ns, secret, saved } = await withHost();
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = (await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' })).id as string;
    const idle = (await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' })).id as string;
    const refused = async (label: string, expected: string[]) => {
      for (const res of [await put(ns, body(secret, { address: 'elsewhere.example.test' })), await t.request({ method: 'DELETE', url: url(ns) })]) {
        expectError(res, 409, 'NAMESPACE_AGENTS_ACTIVE');
        expect(res.body.error.details, label).toEqual(expected.map((id) => ({ path: `/agents/${id}`, code: 'REFERENCED_BY' })));
        expect(res.body.error.message).toMatch(/stop them first/);
      }
      expect((await t.request({ method: 'GET', url: url(ns) })).body.data, label).toEqual(saved);
    };

    // A stopped, never deployed Agent (idle) does not hold the host.
    const deployed = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent}/deploy` });
    expect(deployed.status, deployed.raw).toBe(202);
    await refused('a deploy under way', [agent]);
    // Activated as the worker does: the pointer moves through the repository.
    expect(await t.controller.deps.state.transact((uow) => uow.agents.compareAndSetActiveRevision(ns, agent, null, deployed.body.data.id))).toBe(true);
    await refused('an active revision', [agent]);
    expect((await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent}/stop` })).status).toBe(202);
    await refused('a stop not finished', [agent]);
    // The stop finishes (the worker clears the pointer once the runtime is stopped; its work item stays queued here).
    expect(await t.controller.deps.state.transact((uow) => uow.agents.compareAndSetActiveRevision(ns, agent, deployed.body.data.id, null))).toBe(true);
    // Deleted: its removal from the host is queued until a worker runs it.
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/agents/${agent}` })).status).toBe(204);
    await refused('a removal queued', [agent]);
    await t.database.query("UPDATE work_items SET state = 'succeeded' WHERE agent_id = $1 AND kind = 'remove_agent'", [agent]);

    expect((await auditRows(ns)).map((e) => e.action)).toEqual(['ssh_hosts.put']);
    const moved = await put(ns, body(secret, { address: 'elsewhere.example.test' }));
    expect(moved.status, moved.raw).toBe(200);
    expect(moved.body.data.address).toBe('elsewhere.example.test');
    expect(idle).toMatch(/^agt_/);
  });

  it('the key Secret cannot be deleted while the host uses it (409 naming the host, the Secret stays); DELETE → 204 with what was removed audited, then GET and DELETE → 404 and the Secret deletes', async () => {
    const { ns, secret } = await withHost();
    const inUse = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret}` });
    expectError(inUse, 409, 'RESOURCE_CONFLICT');
    expect(inUse.body.error.details).toEqual([{ path: `/ssh-host/${ns}`, code: 'REFERENCED_BY' }]);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets/${secret}` })).status).toBe(200);

    const removed = await t.request({ method: 'DELETE', url: url(ns) });
    expect(removed.status, removed.raw).toBe(204);
    expect(removed.raw).toBe('');
    expectError(await t.request({ method: 'GET', url: url(ns) }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'DELETE', url: url(ns) }), 404, 'NOT_FOUND');
    const events = await auditRows(ns);
    expect(events.map((e) => e.action)).toEqual(['ssh_hosts.put', 'ssh_hosts.delete']);
    expect(events[1]!.details).toEqual({ address: 'agents.example.test:2222', user: 'occ-agents', hostKey: host.publicKey, privateKeySecretId: secret });
    for (const e of events) expectNoKey('an audit row', e.t);

    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret}` })).status).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}` })).status).toBe(204);
  });

  it('the key Secret deleted underneath the write (the foreign key, not the check, refuses it) → 404 at /privateKeySecretId, never a 500', async () => {
    const ns = await newNamespace();
    const secret = await newSecret(ns, client.privateKey);
    // The repository's own answer when the Secret is gone by the time the row is written.
    const write = t.controller.deps.state.transact(async (uow) => {
      await uow.secrets.delete(ns, secret);
      return uow.sshHosts.put({ namespaceId: ns, address: 'a.example.test', user: 'occ', hostKey: host.publicKey, privateKeySecretId: secret });
    });
    await expect(write).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ path: '/privateKeySecretId', code: 'INVALID_VALUE' }] });
    // The Secret delete's rollback kept it; a host referring to it makes its delete a 409 even without the use case's check.
    expect(
      await t.controller.deps.state.transact((uow) =>
        uow.sshHosts.put({ namespaceId: ns, address: 'a.example.test', user: 'occ', hostKey: host.publicKey, privateKeySecretId: secret }),
      ),
    ).toMatchObject({ namespaceId: ns });
    await expect(t.controller.deps.state.transact((uow) => uow.secrets.delete(ns, secret))).rejects.toMatchObject({ code: 'RESOURCE_CONFLICT' });
  });

  it("the host's key is a Secret no Agent receives: a Secret a Configuration binds is refused as the key, the key is refused as a binding or a codex_pat, and a start that would deliver it is denied (SECRET_RESERVED)", async () => {
    const ns = await newNamespace();
    const bound = await newSecret(ns, client.privateKey);
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { SOME_KEY: { secretId: bound } } });
    const refused = await put(ns, body(bound));
    expectError(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.error.details).toEqual([{ path: '/privateKeySecretId', code: 'REFERENCED_BY' }]);
    expect(await hostRow(ns)).toBeNull();

    const key = await newSecret(ns, client.privateKey);
    expect((await put(ns, body(key))).status).toBe(200);
    const binding = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { secretBindings: { SSH_KEY: { secretId: key } } } });
    expectError(binding, 400, 'INVALID_REQUEST');
    expect(binding.body.error.details).toEqual([{ path: '/secretBindings/SSH_KEY/secretId', code: 'UNSUPPORTED_VALUE' }]);
    const codex = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/agents`,
      body: { name: uniqueName('a'), configurationId: cfg.id, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: key } },
    });
    expectError(codex, 400, 'INVALID_REQUEST');
    expect(codex.body.error.details).toEqual([{ path: '/harnessAuth/secretId', code: 'UNSUPPORTED_VALUE' }]);

    // A binding saved before the host (both checks passed at once): the start refuses to deliver it.
    const created = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const agent = created.id as string;
    await grant(t, created.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: bound } });
    const deployed = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent}/deploy` });
    expect(deployed.status, deployed.raw).toBe(202);
    const revisionId = deployed.body.data.id as string;
    await t.controller.deps.state.transact((uow) =>
      uow.sshHosts.put({ namespaceId: ns, address: 'agents.example.test', user: 'occ-agents', hostKey: host.publicKey, privateKeySecretId: bound }),
    );
    const authority = createRuntimeStartAuthority({ state: t.controller.deps.state, secrets: t.controller.deps.secrets });
    const denied = await authority.withStartEnvironment({ namespaceId: ns, agentId: agent, revisionId }, async () => 'started').catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(RuntimeStartDenied);
    expect(denied).toMatchObject({ code: 'SECRET_RESERVED', variable: 'SOME_KEY' });
  });

  it('unknown Namespace → 404 on every verb, nothing written', async () => {
    const ns = 'ns_00000000-0000-4000-8000-000000000000';
    const secret = await newSecret(await newNamespace(), client.privateKey);
    expectError(await t.request({ method: 'GET', url: url(ns) }), 404, 'NOT_FOUND');
    expectError(await put(ns, body(secret)), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'DELETE', url: url(ns) }), 404, 'NOT_FOUND');
    expect(await hostRow(ns)).toBeNull();
  });

  it('createComputeHostDirectory opens the key Secret: the saved host with its private key (one the ssh driver accepts), null for a Namespace without a host', async () => {
    const { ns } = await withHost();
    const directory = createComputeHostDirectory({ state: t.controller.deps.state, secrets: t.controller.deps.secrets });
    const found = await directory.sshHostOf(ns);
    expect(found).toEqual({ address: 'agents.example.test:2222', user: 'occ-agents', hostKey: host.publicKey, privateKey: client.privateKey });
    expect(() => t.controller.deps.compute!.validateSshHost!(found!)).not.toThrow();
    expect(await directory.sshHostOf(await newNamespace())).toBeNull();
  });

  it('[P-3] the ssh target refuses a plugin map and Agent-wide default approvers at save whether or not the Namespace has a host, and admits an Agent without them: no host is needed to decide', async () => {
    for (const withSavedHost of [false, true]) {
      const ns = withSavedHost ? (await withHost()).ns : await newNamespace();
      const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
      const create = (extra: object) =>
        t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw', ...extra } });
      const plugins = await create({ plugins: { browser: { enabled: true } } });
      expect(plugins.status, plugins.raw).toBe(400);
      expect(plugins.body.error.details).toEqual([{ path: '/plugins', code: 'UNSUPPORTED_FIELD' }]);
      const approvers = await create({ pluginApprovers: [{ channel: 'slack', id: 'U1' }] });
      expect(approvers.status, approvers.raw).toBe(400);
      expect(approvers.body.error.details).toEqual([{ path: '/pluginApprovers', code: 'UNSUPPORTED_FIELD' }]);
      // Without plugins the Agent deploys: admission asks the driver nothing about a host.
      const plain = (await create({})).body.data.id as string;
      const deployed = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${plain}/deploy` });
      expect(deployed.status, `${withSavedHost}: ${deployed.raw}`).toBe(202);
    }
  });
});
