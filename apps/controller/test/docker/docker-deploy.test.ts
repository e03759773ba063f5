import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeController, type ComposedController } from '../../src/composition/compose.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { demuxLog } from '../../src/drivers/compute/docker/container-log.ts';
import { labelFilter, LABELS } from '../../src/drivers/compute/docker/container-spec.ts';
import { CONTAINER_PATHS } from '../../src/drivers/compute/runtime-contract/container-paths.ts';
import { POD_PATHS } from '../../src/drivers/compute/kubernetes/render/revision.ts';
import { activeRevisionId, admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS, useFixtureRegistry, type FixtureRegistry } from '../../../../test-support/npm-registry.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// The docker ComputeDriver on the machine's real Docker engine (dockerd --bridge=none) with the
// real runtime image (apps/runtime/Dockerfile, built on a locally made base by the global setup):
// real OpenClaw installs from the run's fixture registry inside hardened containers.
const DEPLOY_MS = 300_000;
const GOOD = FIXTURE_PLUGINS.good;
const KEY_VARIABLE = 'FIXTURE_API_KEY';
const canary = `docker-canary-${randomBytes(12).toString('hex')}`;

const docker = new Docker();
const installation = `t${randomBytes(4).toString('hex')}`;
let image: string;
let registry: FixtureRegistry;
let root: string;
let catalogPath: string;
let base: TestController;
let current: ComposedController;
let target: DeployTarget;
const secretKey = randomBytes(32);

function dockerCompute() {
  const driver = createComputeDriver('docker', {
    dataDir: root,
    env: { ...process.env, OCC_RUNTIME_IMAGE: image, OCC_DOCKER_INSTALLATION: installation, OCC_OPENCLAW_CATALOG: catalogPath, OCC_NPM_REGISTRY: registry.url, OCC_DOCKER_MEMORY: '1536m' },
  });
  if (!driver || driver.id !== 'docker') throw new Error('no docker ComputeDriver');
  return driver;
}

/** A request to the current controller (after restartOcc, the new one on the same database). */
async function request(options: { method: 'GET' | 'POST' | 'PATCH'; url: string; body?: unknown }): Promise<TestResponse> {
  const res = await current.app.inject({
    method: options.method,
    url: options.url,
    headers: { authorization: `Bearer ${base.adminKey}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined, raw: res.body };
}
const t = (): TestController => ({ ...base, request: (o) => request(o as Parameters<typeof request>[0]) }) as TestController;

async function containersOf(agentId: string) {
  const found = await docker.listContainers({ all: true, filters: { label: labelFilter(installation, { agentId }) } });
  return Promise.all(found.map((c) => docker.getContainer(c.Id).inspect()));
}
async function containerOf(revisionId: string) {
  const [found] = await docker.listContainers({ all: true, filters: { label: labelFilter(installation, { revisionId }) } });
  if (!found) throw new Error(`no container for ${revisionId}`);
  return docker.getContainer(found.Id).inspect();
}
async function exec(id: string, cmd: string[], user?: string): Promise<{ code: number; output: string }> {
  const run = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, ...(user ? { User: user } : {}) });
  const stream = await run.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve());
  });
  const { ExitCode } = await run.inspect();
  return { code: ExitCode ?? -1, output: demuxLog(Buffer.concat(chunks)) };
}
async function live(revisionId: string) {
  const res = await request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` });
  if (res.status !== 200) throw new Error(`the live runtime view answered ${res.status}: ${res.raw}`);
  return res.body.data;
}

beforeAll(async () => {
  image = await ensureTestRuntimeImage();
  registry = await useFixtureRegistry();
  root = mkdtempSync(join(tmpdir(), 'occ-docker-e2e-'));
  catalogPath = join(root, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
  process.env.OCC_OPENCLAW_CATALOG = catalogPath;
  // One attempt per deploy: a failing candidate fails at once (retries are the worker's own tests).
  base = await startTestController({ compute: dockerCompute(), worker: WORKER, secretKey, work: { maxAttempts: 1 } });
  current = base.controller;
}, 900_000);

afterAll(async () => {
  for (const c of await docker.listContainers({ all: true, filters: { label: labelFilter(installation) } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  if (current && current !== base?.controller) await current.close().catch(() => {});
  await base?.close().catch(() => {});
  await registry?.close();
  delete process.env.OCC_OPENCLAW_CATALOG;
  rmSync(root, { recursive: true, force: true });
}, 120_000);

let first: string;
let second: string;

describe('the docker ComputeDriver on a real Docker engine', () => {
  it('the runtime image (apps/runtime/Dockerfile): non-root, labelled, and the container paths both drivers mount are the ones it uses', async () => {
    const { Config } = await docker.getImage(image).inspect();
    expect(Config.User).toBe('10001:10001');
    expect(Config.Labels).toMatchObject({ 'org.opencontainers.image.title': 'occ-runtime', 'org.opencontainers.image.version': expect.any(String) });
    const paths = { home: CONTAINER_PATHS.home, tmp: CONTAINER_PATHS.tmp, revisionDir: CONTAINER_PATHS.revisionDir, stateDir: CONTAINER_PATHS.stateDir };
    expect({ home: POD_PATHS.home, tmp: POD_PATHS.tmp, revisionDir: POD_PATHS.revisionDir, stateDir: POD_PATHS.stateDir }).toEqual(paths);
    expect(Config.Env).toEqual(expect.arrayContaining([`HOME=${paths.home}`, `TMPDIR=${paths.tmp}`, `OCC_RUNTIME_REVISION_DIR=${paths.revisionDir}`, `OCC_RUNTIME_STATE_DIR=${paths.stateDir}`]));
    expect(Config.Env.find((entry) => entry.startsWith('PATH='))).toMatch(/^PATH=\/opt\/occ\/apps\/runtime\/node24\/node_modules\/\.bin:/);
  });

  it(
    '[P-2][P-7][P-8] a revision runs in a hardened container: non-root, read-only root, no capabilities, no new privileges, limits; the manifest as bounded environment; native state in private tmpfs; no Secret value in the command line or labels',
    async () => {
      target = await newDeployTarget(t(), { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values: { tools: { profile: 'coding' } } });
      const ns = base.defaultNamespaceId;
      const secret = await adminCreate(t(), `/namespaces/${ns}/secrets`, { name: uniqueName('key'), value: canary });
      const bound = await request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${target.cfg}`, body: { secretBindings: { [KEY_VARIABLE]: { secretId: secret.id } } } });
      expect(bound.status, bound.raw).toBe(200);
      await grant(t(), target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });

      const started = Date.now();
      first = (await admit(t(), target)).id;
      const status = await waitTerminal(t(), target, first, DEPLOY_MS);
      console.log(`docker deploy (one plugin installed in the container): ${Date.now() - started} ms`);
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      expect(await live(first)).toMatchObject({ running: true, ready: true, phase: 'ready', deliveredSecrets: [KEY_VARIABLE], restarts: 0 });

      const info = await containerOf(first);
      expect(info.State.Running).toBe(true);
      expect(info.Config.User).toBe('10001:10001');
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], Privileged: false, Init: true, NetworkMode: 'host', PidsLimit: 512, RestartPolicy: { Name: 'unless-stopped' } });
      expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
      expect(info.HostConfig.Memory).toBe(1536 * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(1e9);
      // [P-2] the request arrives as one bounded variable; no manifest file is given.
      const env = new Map((info.Config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
      expect(JSON.parse(env.get('OCC_RUNTIME_MANIFEST_JSON')!)).toMatchObject({ revisionId: first, agentId: target.agentId, plugins: { selections: { [`openclaw:${GOOD.package}`]: { enabled: true } } } });
      expect(env.has('OCC_RUNTIME_MANIFEST')).toBe(false);
      // [P-8] home, temporary directory, revision directory and OpenClaw state are private tmpfs (0700, the runtime user's); nothing writable is mounted from the host.
      expect(Object.keys(info.HostConfig.Tmpfs ?? {}).sort()).toEqual(['/tmp', '/var/lib/occ']);
      expect(Object.values(info.HostConfig.Tmpfs ?? {}).every((o) => o.includes('mode=0700') && o.includes('uid=10001'))).toBe(true);
      expect(info.Mounts.filter((m) => m.Type !== 'tmpfs').every((m) => m.RW === false)).toBe(true);
      // [P-7] the revision's files and the Agent's OpenClaw state (its plugin registry and installs) are the runtime user's alone.
      const state = await exec(info.Id, ['sh', '-c', 'id -u; stat -c %a /var/lib/occ/revision /var/lib/occ/state; ls /var/lib/occ/state/npm >/dev/null && echo installed-here; touch /opt/occ/x 2>/dev/null || echo read-only']);
      expect(state.output.trim().split('\n')).toEqual(['10001', '700', '700', 'installed-here', 'read-only']);
      // Not even root inside writes to the image.
      const root = await exec(info.Id, ['sh', '-c', 'touch /opt/occ/x 2>&1 || true'], '0');
      expect(root.output).toMatch(/Read-only file system/);
      // The canary is in the container's environment only: not its command line, not a label.
      expect(JSON.stringify([info.Path, info.Args, info.Config.Cmd, info.Config.Entrypoint, info.Config.Labels])).not.toContain(canary);
      expect(info.Config.Labels?.[LABELS.deliveredSecrets]).toBe(KEY_VARIABLE);
      const logs = await request({ method: 'GET', url: `${target.url}/deployments/${first}/runtime/logs?tail=1000` });
      expect(logs.status).toBe(200);
      expect(logs.body.data.lines.join('\n')).toContain('startup.ready');
      expect(logs.raw).not.toContain(canary);
    },
    DEPLOY_MS,
  );

  it(
    '[P-5][P-6] a second revision replaces the first (Recreate): the old container stops before the new one is created (never two gateways on the Agent), and is removed once the new one is active',
    async () => {
      const since = Math.floor(Date.now() / 1000) - 1;
      const oldId = (await containerOf(first)).Id;
      const changed = await request({ method: 'PATCH', url: target.url, body: { plugins: {} } });
      expect(changed.status, changed.raw).toBe(200);
      second = (await admit(t(), target)).id;
      expect(await waitTerminal(t(), target, second, DEPLOY_MS)).toMatchObject({ state: 'succeeded', active: true });
      expect(await activeRevisionId(t(), target)).toBe(second);
      const newId = (await containerOf(second)).Id;
      const until = Math.ceil(Date.now() / 1000) + 1;
      const raw = (await docker.getEvents({ since, until, filters: { type: ['container'], label: labelFilter(installation, { agentId: target.agentId }) } })) as unknown as NodeJS.ReadableStream;
      const text = await new Promise<string>((resolve) => {
        let all = '';
        raw.on('data', (chunk: Buffer) => (all += chunk.toString('utf8')));
        raw.on('end', () => resolve(all));
      });
      const events = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { Action: string; id: string; timeNano: number });
      const at = (id: string, action: string) => events.find((e) => e.id === id && e.Action === action)?.timeNano;
      expect(at(oldId, 'die')).toBeDefined();
      expect(at(newId, 'create')).toBeDefined();
      expect(at(oldId, 'die')!).toBeLessThan(at(newId, 'create')!);
      expect(at(oldId, 'destroy')).toBeDefined();
      expect((await containersOf(target.agentId)).map((c) => c.Id)).toEqual([newId]);
    },
    DEPLOY_MS,
  );

  it(
    '[S-2] a failing candidate fails its deploy with the runtime failure code; the pointer stays and the active revision runs again',
    async () => {
      // The runtime fails it on its own: a Configuration OpenClaw refuses (an unknown top-level key).
      const broken = await request({ method: 'PATCH', url: `/namespaces/${base.defaultNamespaceId}/configurations/${target.cfg}`, body: { values: { tools: { profile: 'coding' }, notAnOpenClawKey: 1 } } });
      expect(broken.status, broken.raw).toBe(200);
      const candidate = (await admit(t(), target)).id;
      const status = await waitTerminal(t(), target, candidate, DEPLOY_MS);
      expect(status).toMatchObject({ state: 'failed', active: false, error: { code: 'PLUGIN_REGISTRY_REFRESH_FAILED' } });
      expect(await activeRevisionId(t(), target)).toBe(second);
      await waitFor('revision 2 back and ready', () => live(second), (v) => v.ready === true, 120_000, 500);
      const stopped = await containerOf(candidate);
      expect(stopped.State.Running).toBe(false);
      expect(await live(candidate)).toMatchObject({ running: false, lastFailureCode: 'PLUGIN_REGISTRY_REFRESH_FAILED' });
    },
    DEPLOY_MS,
  );

  it(
    'a runtime that dies is restarted by the engine (a new startup, judged again) and an OCC restart leaves it running as it is',
    async () => {
      const before = await live(second);
      const info = await containerOf(second);
      process.kill(info.State.Pid, 'SIGKILL');
      const back = await waitFor('the engine restarts it', () => live(second), (v) => v.restarts === 1 && v.ready === true, 120_000, 500);
      expect(back.startupId).not.toBe(before.startupId);

      const running = await containerOf(second);
      await current.close();
      current = await composeController({ database: base.database, secretKey, logger: { level: 'warn' }, compute: dockerCompute(), work: { maxAttempts: 1 }, worker: { settings: WORKER, backoff: { baseMs: 50, capMs: 500 } } });
      const after = await containerOf(second);
      expect(after.Id).toBe(running.Id);
      expect(after.State.StartedAt).toBe(running.State.StartedAt);
      expect(await live(second)).toMatchObject({ running: true, ready: true, startupId: back.startupId });
    },
    DEPLOY_MS,
  );
});
