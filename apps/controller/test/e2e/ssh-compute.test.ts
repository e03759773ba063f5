import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeManifest } from '@occ/contracts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import { activeRevisionId, admit, newDeployTarget, storePluginsUnchecked, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { sshDriverEnv, startRealSshd, type RealSshd } from '../../../../test-support/ssh/real-sshd.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// The ssh ComputeDriver against a real OpenSSH server on loopback (a throwaway host key and user,
// test-support/ssh/real-sshd.ts): the host is this machine, reached only through sshd, and the
// runtime runs as the throwaway user from this checkout (OCC_SSH_WORKSPACE). The one fake is the
// model (the scripted OpenAI-compatible server).
const WORKSPACE = join(import.meta.dirname, '..', '..', '..', '..');
const DEPLOY_MS = 300_000;
const KEY_VARIABLE = 'SCRIPTED_MODEL_KEY';
const canary = `ssh-canary-${Date.now().toString(36)}-value`;

let sshd: RealSshd;
let model: ScriptedModelServer;
let t: TestController;
let root: string;
let target: DeployTarget;
let firstRevisionId: string;

const sshEnv = (overrides: Record<string, string> = {}) => sshDriverEnv(sshd, WORKSPACE, overrides);

beforeAll(async () => {
  sshd = await startRealSshd();
  model = await startScriptedModelServer();
  root = mkdtempSync(join(tmpdir(), 'occ-e2e-ssh-'));
  const compute = await createComputeDriver('ssh', { dataDir: join(root, 'data'), env: sshEnv() });
  if (!compute) throw new Error('no ssh ComputeDriver');
  t = await startTestController({ compute, worker: WORKER });
});

afterAll(async () => {
  await t?.close();
  await model?.close();
  if (process.env.OCC_E2E_KEEP) return;
  await sshd?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

// A failure on a loaded CI machine is read afterwards from what it printed: each runtime log of the
// Agent on the host (test values only) goes with it.
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    if (!target) return;
    const revisions = join(agentsDir(), target.agentId, 'revisions');
    for (const revisionId of existsSync(revisions) ? readdirSync(revisions) : []) {
      const log = join(revisions, revisionId, 'runtime.log');
      if (existsSync(log)) console.error(`--- runtime.log of ${revisionId} on the host:\n${readFileSync(log, 'utf8').split('\n').slice(-80).join('\n')}`);
    }
  });
});

const agentsDir = () => join(sshd.home, '.occ', 'agents');
const revisionDir = (revisionId: string) => join(agentsDir(), target.agentId, 'revisions', revisionId);
/** The pinned Node running the runtime's entry (not a shell whose script names the file). */
const RUNTIME_ARGV = /\/bin\/node --import \S+ \S+\/apps\/runtime\/src\/entry\.ts$/;
/**
 * The revision each runtime process of the host's user serves (its working directory's name). A
 * child the runtime forked but has not yet exec'd (it spawns CLI commands) shows the same command
 * line and directory for a moment: only a process whose parent is not one of them is a runtime.
 */
function runtimeRevisionsOnHost(uid = sshd.uid): string[] {
  const seen = readdirSync('/proc')
    .filter((entry) => /^[0-9]+$/.test(entry))
    .flatMap((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        if (Number(/^Uid:\s+([0-9]+)/m.exec(status)?.[1]) !== uid || /^State:\s+Z/m.test(status)) return [];
        if (!RUNTIME_ARGV.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '))) return [];
        return [{ pid, parent: /^PPid:\s+([0-9]+)/m.exec(status)?.[1], revision: basename(readlinkSync(`/proc/${pid}/cwd`)) }];
      } catch {
        return []; // gone meanwhile
      }
    });
  const pids = new Set(seen.map((p) => p.pid));
  return seen.filter((p) => p.parent === undefined || !pids.has(p.parent)).map((p) => p.revision);
}

/** Every file under `dir`, recursively (symbolic links not followed). */
function filesUnder(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // gone meanwhile (the gateway's staging directories come and go)
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Samples `sample` every 100 ms until `until` settles; returns what `until` resolved to and every sample. */
async function sampling<T, S>(sample: () => S, until: Promise<T>): Promise<{ result: T; samples: S[] }> {
  const samples: S[] = [];
  let done = false;
  const settled = until.finally(() => (done = true));
  while (!done) {
    samples.push(sample());
    await Promise.race([settled.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  return { result: await settled, samples };
}

/** The reply text of an SSE answer from POST …/messages. */
const replyOf = (raw: string) =>
  raw
    .split('\n\n')
    .filter((block) => block.startsWith('event: reply'))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)).text)
    .join('');

describe('the ssh ComputeDriver on a real sshd', () => {
  it('[P-3] a plugin map or Agent default approvers on an SSH Agent are refused when saved and at deploy (400 naming the field) and by the driver, before any host effect: sshd saw no login', async () => {
    const ns = t.defaultNamespaceId;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { a: 1 } });
    const withPlugins = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/agents`,
      body: { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw', plugins: { 'openclaw:@openclaw/nostr': { enabled: true } } },
    });
    expect(withPlugins.status, withPlugins.raw).toBe(400);
    expect(withPlugins.body.error.details).toEqual([{ path: '/plugins', code: 'UNSUPPORTED_FIELD' }]);
    expect(withPlugins.body.error.message).toContain('without plugins');

    const plain = await newDeployTarget(t, { plugins: {} });
    const capabilities = await t.request({ method: 'GET', url: `${plain.url}/plugins/capabilities` });
    expect(capabilities.body.data.compute).toEqual({ driver: 'ssh', plugins: false, agentApprovers: false });
    const withApprovers = await t.request({ method: 'PATCH', url: plain.url, body: { pluginApprovers: [{ channel: 'slack', id: 'U123' }] } });
    expect(withApprovers.status, withApprovers.raw).toBe(400);
    expect(withApprovers.body.error.details).toEqual([{ path: '/pluginApprovers', code: 'UNSUPPORTED_FIELD' }]);

    // An Agent stored before (or past) the save-time check is refused at deploy, nothing admitted.
    await storePluginsUnchecked(t, plain, { 'openclaw:@openclaw/nostr': { enabled: true } });
    const refused = await t.request({ method: 'POST', url: `${plain.url}/deploy` });
    expect(refused.status, refused.raw).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: '/plugins', code: 'UNSUPPORTED_FIELD' }]);
    expect((await t.request({ method: 'GET', url: `${plain.url}/revisions` })).body.data.items).toEqual([]);

    // The driver's own check, before the host: a revision with a plugin map handed to it directly.
    const driver = (await createComputeDriver('ssh', { dataDir: join(root, 'direct'), env: sshEnv() }))!;
    const agent = (await t.request({ method: 'GET', url: plain.url })).body.data;
    const forged = {
      id: 'rev_00000000-0000-4000-8000-000000000000',
      namespaceId: agent.namespaceId,
      agentId: agent.id,
      revision: 1,
      harness: 'openclaw',
      pluginDriverId: null,
      plugins: { 'openclaw:@openclaw/nostr': { enabled: true } },
      pluginApprovers: null,
      configuration: { secretBindings: {} },
    } as never;
    await expect(driver.prepareRevision(forged, {} as RuntimeManifest, { signal: AbortSignal.timeout(10_000) })).rejects.toMatchObject({ code: 'SSH_PLUGINS_UNSUPPORTED' });
    await driver.close?.();
    expect(sshd.acceptedLogins()).toBe(0);
  });

  it(
    '[S-2][K-7] an Agent without plugins deploys to succeeded on the SSH host; a message through OCC is answered by the scripted model; the delivered Secret is in no argv on the host, no log and no file',
    async () => {
      const ns = t.defaultNamespaceId;
      target = await newDeployTarget(t, { plugins: {}, values: scriptedModelConfiguration(model, { apiKey: { source: 'env', provider: 'default', id: KEY_VARIABLE } }) });
      const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('model-key'), value: canary });
      const bound = await t.request({
        method: 'PATCH',
        url: `/namespaces/${ns}/configurations/${target.cfg}`,
        body: { secretBindings: { [KEY_VARIABLE]: { secretId: secret.id } } },
      });
      expect(bound.status, bound.raw).toBe(200);
      await grant(t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });

      const revision = await admit(t, target);
      firstRevisionId = revision.id;
      const { result: status, samples } = await sampling(() => sshd.processesOfUser(), waitTerminal(t, target, revision.id, DEPLOY_MS));
      expect(status, JSON.stringify(status)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      // The runtime ran on the host as its user, and the canary was never on a command line there.
      expect(samples.flat().some((argv) => RUNTIME_ARGV.test(argv))).toBe(true);
      expect(samples.flat().filter((argv) => argv.includes(canary))).toEqual([]);
      expect(runtimeRevisionsOnHost()).toHaveLength(1);

      const live = await t.request({ method: 'GET', url: `${target.url}/deployments/${revision.id}/runtime` });
      expect(live.body.data).toMatchObject({ running: true, ready: true, phase: 'ready', deliveredSecrets: [KEY_VARIABLE] });

      model.enqueue({ kind: 'text', text: 'answered on the ssh host' });
      const reply = await t.request({ method: 'POST', url: `${target.url}/messages`, body: { text: 'Hello over SSH' } });
      expect(reply.status, reply.raw).toBe(200);
      expect(replyOf(reply.raw)).toBe('answered on the ssh host');
      const turn = model.completions().at(-1)!;
      expect(JSON.stringify(turn.body)).toContain('Hello over SSH');
      // The Secret reached the model as its key: delivered to the runtime, used by the gateway.
      expect(turn.headers.authorization).toBe(`Bearer ${canary}`);

      const logs = await t.request({ method: 'GET', url: `${target.url}/deployments/${revision.id}/runtime/logs?tail=500` });
      expect(logs.status, logs.raw).toBe(200);
      expect(logs.body.data.lines.length).toBeGreaterThan(0);
      expect(logs.raw).not.toContain(canary);
      // No file the user has (its home holds the Agent's directory, state and logs) holds the value.
      const holding = filesUnder(sshd.home).filter((file) => existsSync(file) && statSync(file).size < 64 * 1024 * 1024 && readFileSync(file).includes(canary));
      expect(holding).toEqual([]);
      // The Agent's directory is private to the host's user.
      expect(statSync(join(agentsDir(), target.agentId)).mode & 0o777).toBe(0o700);
      expect(statSync(join(revisionDir(revision.id), 'runtime.log')).mode & 0o777).toBe(0o600);
    },
    DEPLOY_MS + 60_000,
  );

  it(
    '[P-6][K-3] a second revision is Recreate on the host: never two runtimes of the Agent at once, the first stops before the second starts, and its directory is retired',
    async () => {
      const patched = await t.request({
        method: 'PATCH',
        url: `/namespaces/${target.ns}/configurations/${target.cfg}`,
        body: { values: scriptedModelConfiguration(model, { toolSearch: true, apiKey: { source: 'env', provider: 'default', id: KEY_VARIABLE } }) },
      });
      expect(patched.status, patched.raw).toBe(200);
      const revision = await admit(t, target);
      const { result: status, samples } = await sampling(runtimeRevisionsOnHost, waitTerminal(t, target, revision.id, DEPLOY_MS));
      expect(status, JSON.stringify(status)).toMatchObject({ state: 'succeeded', active: true });
      const previousRevisionId = firstRevisionId;
      firstRevisionId = revision.id;
      const counts = samples.map((argvs) => argvs.length);
      const overlap = () => {
        const events = readFileSync(join(revisionDir(revision.id), 'runtime.log'), 'utf8')
          .split('\n')
          .filter((line) => /"event":"(startup\.(serving|failed)|runtime\.stopping)"/.test(line));
        return JSON.stringify({ overlapping: samples.filter((revisions) => revisions.length > 1).slice(0, 2), attempts: status.attempts, events });
      };
      expect(Math.max(...counts), overlap()).toBe(1);
      expect(counts).toContain(0);
      expect(await activeRevisionId(t, target)).toBe(revision.id);
      await waitFor(
        'the first revision retired on the host',
        async () => readdirSync(join(agentsDir(), target.agentId, 'revisions')),
        (dirs) => !dirs.includes(previousRevisionId),
        60_000,
      );
    },
    DEPLOY_MS + 60_000,
  );

  it("[P-7] a scripted model drives the Agent on the SSH host to read OCC's SSH client key and its driver key and to list OCC's data directory: it gets neither key nor listing", async () => {
    const clientKey = readFileSync(sshd.clientKeyPath, 'utf8');
    const driverKeyPath = join(root, 'data', 'compute', 'ssh', 'driver-key');
    const driverKey = readFileSync(driverKeyPath, 'utf8').trim();
    // `read` is held to the Agent's workspace by the runtime's default (tools.fs.workspaceOnly); exec has no such rule and meets
    // the host's kernel: OCC's files are root's, in 0700 directories.
    const attempts = [
      { name: 'read', arguments: { path: sshd.clientKeyPath }, refused: /Path escapes sandbox root/ },
      { name: 'read', arguments: { path: driverKeyPath }, refused: /Path escapes sandbox root/ },
      { name: 'exec', arguments: { command: `ls -la ${join(root, 'data')}; cat ${sshd.clientKeyPath} ${driverKeyPath}` }, refused: /permission denied/i },
    ];
    for (const { refused, ...attempt } of attempts) {
      const mark = model.completions().length;
      model.enqueue({ kind: 'tool-call', ...attempt }, { kind: 'text', text: 'done' });
      const reply = await t.request({ method: 'POST', url: `${target.url}/messages`, body: { text: `Use ${attempt.name}.` } });
      expect(reply.status, reply.raw).toBe(200);
      const turn = model.completions().slice(mark);
      expect(turn.length, JSON.stringify(attempt)).toBeGreaterThanOrEqual(2);
      const messages = (turn[1]!.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      const toolAnswer = messages.filter((m) => m.role === 'tool').at(-1);
      expect(toolAnswer, `the ${attempt.name} tool answered the model`).toBeDefined();
      expect(JSON.stringify(toolAnswer?.content)).toMatch(refused);
      const told = JSON.stringify(turn[1]!.body);
      expect(told).not.toContain(clientKey.split('\n')[1]!);
      expect(told).not.toContain(driverKey);
      expect(told).not.toContain('driver-key ');
      expect(reply.raw).not.toContain(driverKey);
    }
  }, 300_000);

  it(
    '[S-2] a runtime killed on the host is started again by OCC (re-authorized), and serves: the live view counts the restart',
    async () => {
      const pid = Number(readFileSync(join(revisionDir(firstRevisionId), 'runtime.pid'), 'utf8'));
      process.kill(-pid, 'SIGKILL');
      await waitFor(
        'the runtime gone',
        async () => runtimeRevisionsOnHost().length,
        (n) => n === 0,
        10_000,
      );
      const live = await waitFor(
        'the runtime started again and ready',
        async () => (await t.request({ method: 'GET', url: `${target.url}/deployments/${firstRevisionId}/runtime` })).body.data,
        (view) => view.ready === true,
        DEPLOY_MS,
      );
      expect(live).toMatchObject({ running: true, ready: true, restarts: 1, deliveredSecrets: [KEY_VARIABLE] });
      expect(Number(readFileSync(join(revisionDir(firstRevisionId), 'runtime.pid'), 'utf8'))).not.toBe(pid);
      model.enqueue({ kind: 'text', text: 'back again' });
      const reply = await t.request({ method: 'POST', url: `${target.url}/messages`, body: { text: 'Still there?' } });
      expect(replyOf(reply.raw)).toBe('back again');
    },
    DEPLOY_MS + 30_000,
  );

  it('a host whose key is not the pinned one is refused before login (SSH_HOST_KEY_MISMATCH); a key the host does not accept is SSH_AUTH_REFUSED', async () => {
    const manifest = JSON.parse(readFileSync(join(revisionDir(firstRevisionId), 'manifest.json'), 'utf8')) as RuntimeManifest;
    const revision = (await t.request({ method: 'GET', url: `${target.url}/revisions/${firstRevisionId}` })).body.data;
    const loginsBefore = sshd.acceptedLogins();
    const prepareWith = async (env: Record<string, string>, dir: string) => {
      const driver: ComputeDriver = (await createComputeDriver('ssh', { dataDir: join(root, dir), env: sshEnv(env) }))!;
      driver.start?.(new StaticStartAuthority());
      try {
        return await driver.prepareRevision(revision, manifest, { signal: AbortSignal.timeout(30_000) });
      } finally {
        await driver.close?.();
      }
    };
    expect(await prepareWith({ OCC_SSH_HOST_KEY: sshd.otherHostPublicKey }, 'wrong-key')).toMatchObject({ state: 'failed', failure: { code: 'SSH_HOST_KEY_MISMATCH' } });
    const otherKey = join(root, 'other_client_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
    expect(await prepareWith({ OCC_SSH_PRIVATE_KEY_FILE: otherKey }, 'wrong-client')).toMatchObject({ state: 'failed', failure: { code: 'SSH_AUTH_REFUSED' } });
    expect(sshd.acceptedLogins()).toBe(loginsBefore);
    // The Agent's runtime was never touched.
    expect(runtimeRevisionsOnHost()).toHaveLength(1);
  });

  it(
    'sshd killed mid-deploy: the deploy fails with SSH_HOST_UNREACHABLE; once sshd is back OCC stops the failed candidate still running on the host, starts the active revision again and relays a message; the next deploy succeeds',
    async () => {
      const revision = await admit(t, target);
      // The candidate runs on the host (Recreate stopped the active one first): the deploy is under way.
      await waitFor('the candidate started on the host', async () => existsSync(join(revisionDir(revision.id), 'runtime.pid')), Boolean, 60_000);
      await sshd.kill();
      const status = await waitTerminal(t, target, revision.id, 120_000);
      expect(status, JSON.stringify(status)).toMatchObject({ state: 'failed', error: { code: 'SSH_HOST_UNREACHABLE' } });
      expect(await activeRevisionId(t, target)).toBe(firstRevisionId);
      // The candidate is the host's process, not the SSH session's: it outlived sshd, and nobody could stop it.
      const candidatePid = Number(readFileSync(join(revisionDir(revision.id), 'runtime.pid'), 'utf8'));
      expect(runtimeRevisionsOnHost()).toHaveLength(1);
      expect(() => process.kill(candidatePid, 0)).not.toThrow();

      await sshd.restart();
      const live = await waitFor(
        'the active revision running again',
        async () => (await t.request({ method: 'GET', url: `${target.url}/deployments/${firstRevisionId}/runtime` })).body.data,
        (view) => view.ready === true,
        DEPLOY_MS,
      );
      expect(live).toMatchObject({ running: true, ready: true, deliveredSecrets: [KEY_VARIABLE] });
      expect(() => process.kill(candidatePid, 0)).toThrow();
      expect(runtimeRevisionsOnHost()).toHaveLength(1);
      model.enqueue({ kind: 'text', text: 'still here' });
      const reply = await t.request({ method: 'POST', url: `${target.url}/messages`, body: { text: 'Are you there?' } });
      expect(replyOf(reply.raw)).toBe('still here');

      const again = await admit(t, target);
      const third = await waitTerminal(t, target, again.id, DEPLOY_MS);
      expect(third, JSON.stringify(third)).toMatchObject({ state: 'succeeded', active: true });
      firstRevisionId = again.id;
    },
    DEPLOY_MS * 2 + 180_000,
  );

  it('stop ends the runtime on the host and supervision leaves it stopped; deleting the Agent removes its private directory there', async () => {
    const stopped = await t.request({ method: 'POST', url: `${target.url}/stop` });
    expect(stopped.status, stopped.raw).toBe(202);
    await waitFor(
      'the runtime to stop on the host',
      async () => runtimeRevisionsOnHost().length,
      (n) => n === 0,
      60_000,
    );
    await waitFor(
      'the stop to clear the active pointer',
      () => activeRevisionId(t, target),
      (active) => active === null,
      60_000,
    );
    // Stopped on purpose: OCC's supervision (its 10 s check) does not start it again.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(runtimeRevisionsOnHost()).toEqual([]);
    const deleted = await t.request({ method: 'DELETE', url: target.url });
    expect(deleted.status, deleted.raw).toBe(204);
    await waitFor(
      'the Agent directory removed on the host',
      async () => readdirSync(agentsDir()),
      (dirs) => !dirs.includes(target.agentId),
      60_000,
    );
  }, 120_000);

  it("[P-3] a Namespace's own SSH host, saved through the API with its client key as a Secret of the Namespace: the Namespace's Agent runs there as that host's user, not on the default host, and a scripted model driving it finds the key in no environment or file; the host does not change under a running Agent", async () => {
    const second = await startRealSshd();
    try {
      const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ssh-ns') })).id;
      const clientKey = readFileSync(second.clientKeyPath, 'utf8');
      const key = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('ssh-key'), value: clientKey });
      const host = { address: `127.0.0.1:${second.port}`, user: second.user, hostKey: second.hostPublicKey, privateKeySecretId: key.id };
      // Validated before it is saved: a host key the host will not present is accepted (it is a key), a Secret that is no key is not.
      const notAKey = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('not-a-key'), value: 'plainly not a key' });
      const refused = await t.request({ method: 'PUT', url: `/namespaces/${ns}/ssh-host`, body: { ...host, privateKeySecretId: notAKey.id } });
      expect(refused.status, refused.raw).toBe(400);
      expect(refused.raw).toContain('/privateKeySecretId');
      const saved = await t.request({ method: 'PUT', url: `/namespaces/${ns}/ssh-host`, body: host });
      expect(saved.status, saved.raw).toBe(200);
      expect(saved.raw).not.toContain(clientKey.split('\n')[1]!);

      const placed = await newDeployTarget(t, { ns, plugins: {}, values: scriptedModelConfiguration(model) });
      const revision = await admit(t, placed);
      const status = await waitTerminal(t, placed, revision.id, DEPLOY_MS);
      expect(status.state, JSON.stringify(status)).toBe('succeeded');
      // The runtime is the second host's user's process, its files in that user's home; the default host holds nothing of the Agent.
      expect(runtimeRevisionsOnHost(second.uid)).toEqual([revision.id]);
      expect(existsSync(join(second.home, '.occ', 'agents', placed.agentId, 'revisions', revision.id))).toBe(true);
      expect(existsSync(join(agentsDir(), placed.agentId))).toBe(false);
      expect(second.acceptedLogins()).toBeGreaterThan(0);
      // An attacker driving this Agent looks for the host's client key where a delivered value would be: it is in none of them.
      const mark = model.completions().length;
      model.enqueue({ kind: 'tool-call', name: 'exec', arguments: { command: 'env; cat /proc/$PPID/environ; ls -la ~; cat ~/.ssh/* 2>&1' } }, { kind: 'text', text: 'done' });
      const attacked = await t.request({ method: 'POST', url: `${placed.url}/messages`, body: { text: 'Use exec.' } });
      expect(attacked.status, attacked.raw).toBe(200);
      const turn = model.completions().slice(mark);
      expect(turn.length).toBeGreaterThanOrEqual(2);
      const toolAnswer = (turn[1]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role === 'tool').at(-1);
      expect(JSON.stringify(toolAnswer?.content)).toContain('PATH=');
      for (const line of clientKey.split('\n').filter((l) => l && !l.startsWith('-----'))) expect(JSON.stringify(turn[1]!.body)).not.toContain(line);

      // Its runtimes are on this host: moving the Namespace while the Agent runs is refused, nothing changed.
      const moved = await t.request({ method: 'PUT', url: `/namespaces/${ns}/ssh-host`, body: { ...host, address: `127.0.0.1:${sshd.port}` } });
      expect(moved.status, moved.raw).toBe(409);
      expect(moved.raw).toContain('NAMESPACE_AGENTS_ACTIVE');
      expect(moved.raw).toContain(`/agents/${placed.agentId}`);
      const kept = await t.request({ method: 'GET', url: `/namespaces/${ns}/ssh-host` });
      expect(kept.body.data.address).toBe(host.address);

      expect((await t.request({ method: 'POST', url: `${placed.url}/stop` })).status).toBe(202);
      await waitFor(
        'the stop to clear the active pointer',
        () => activeRevisionId(t, placed),
        (active) => active === null,
        60_000,
      );
      expect(runtimeRevisionsOnHost(second.uid)).toEqual([]);
      expect((await t.request({ method: 'DELETE', url: placed.url })).status).toBe(204);
      await waitFor(
        'the Agent directory removed on its host',
        async () => existsSync(join(second.home, '.occ', 'agents', placed.agentId)),
        (there) => !there,
        60_000,
      );
      // The host goes once the Agent's removal has finished (its work item done, not only the directory gone).
      await waitFor(
        'the host removed once nothing of the Namespace runs there',
        async () => (await t.request({ method: 'DELETE', url: `/namespaces/${ns}/ssh-host` })).status,
        (status) => status === 204,
        60_000,
        250,
      );
      expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/ssh-host` })).status).toBe(404);
    } finally {
      await second.stop();
    }
  }, 420_000);
});
