import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeController, type ComposedController } from '../../src/composition/compose.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { demuxLog } from '../../src/drivers/compute/docker/container-log.ts';
import { labelFilter, LABELS, networkName } from '../../src/drivers/compute/docker/container-spec.ts';
import { RUNTIME_PORTS } from '../../src/drivers/compute/docker/runtime-ports.ts';
import { dockerComputeSettings } from '../../src/drivers/compute/docker/settings.ts';
import { probeGatewayReady } from '@occ/runtime/gateway-probe';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import { CONTAINER_PATHS } from '../../src/drivers/compute/runtime-contract/container-paths.ts';
import { POD_PATHS } from '../../src/drivers/compute/kubernetes/render/revision.ts';
import { activeRevisionId, admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { connectProbeCommand, parseConnectProbe } from '../../../../test-support/docker/connect-probe.ts';
import { execInContainer } from '../../../../test-support/docker/container-exec.ts';
import { hostAddress, relayToAgents, type HostRelay } from '../../../../test-support/docker/host-relay.ts';
import { callTool, scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS, useFixtureRegistry, type FixtureRegistry } from '../../../../test-support/npm-registry.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { testDatabaseUrl } from '../../../../test-support/vitest/database-templates.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// The docker ComputeDriver on the machine's real Docker engine (dockerd --bridge=none) with the
// real runtime image (apps/runtime/Dockerfile, built on a locally made base by the global setup):
// real OpenClaw installs from the run's fixture registry inside hardened containers, each Agent
// on a network of its own (the registry relayed to the Agents on the host's own address).
const DEPLOY_MS = 300_000;
const GOOD = FIXTURE_PLUGINS.good;
const KEY_VARIABLE = 'FIXTURE_API_KEY';
const canary = `docker-canary-${randomBytes(12).toString('hex')}`;

const docker = new Docker();
const installation = `t${randomBytes(4).toString('hex')}`;
let image: string;
let registry: FixtureRegistry;
let registryRelay: HostRelay;
let driver: ComputeDriver;
let root: string;
let catalogPath: string;
let base: TestController;
let current: ComposedController;
let target: DeployTarget;
const secretKey = randomBytes(32);

function dockerCompute() {
  const driver = createComputeDriver('docker', {
    dataDir: root,
    env: { ...process.env, OCC_RUNTIME_IMAGE: image, OCC_DOCKER_INSTALLATION: installation, OCC_OPENCLAW_CATALOG: catalogPath, OCC_NPM_REGISTRY: registryRelay.url, OCC_DOCKER_MEMORY: '2g' },
  });
  if (!driver || driver.id !== 'docker') throw new Error('no docker ComputeDriver');
  return driver;
}

/** A request to the current controller (after restartOcc, the new one on the same database). */
async function request(options: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; body?: unknown }): Promise<TestResponse> {
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
const exec = (id: string, cmd: string[], user?: string) => execInContainer(docker, id, cmd, user);
/** The Agent's own network, as the engine has it (null when gone). */
async function networkOf(agentId: string) {
  return docker.getNetwork(networkName(installation, agentId)).inspect().catch((error: { statusCode?: number }) => {
    if (error.statusCode === 404) return null;
    throw error;
  });
}
/** The host port the engine published on 127.0.0.1 for a container port. */
function publishedPort(info: Docker.ContainerInspectInfo, port: number): number {
  const binding = info.NetworkSettings.Ports[`${port}/tcp`]?.[0];
  if (binding?.HostIp !== '127.0.0.1') throw new Error(`${port}/tcp is not published on 127.0.0.1: ${JSON.stringify(binding)}`);
  return Number(binding.HostPort);
}
async function live(revisionId: string, of: DeployTarget = target) {
  const res = await request({ method: 'GET', url: `${of.url}/deployments/${revisionId}/runtime` });
  if (res.status !== 200) throw new Error(`the live runtime view answered ${res.status}: ${res.raw}`);
  return res.body.data;
}

beforeAll(async () => {
  image = await ensureTestRuntimeImage();
  registry = await useFixtureRegistry();
  registryRelay = await relayToAgents(registry.url, dockerComputeSettings({ OCC_RUNTIME_IMAGE: image }).subnets);
  root = mkdtempSync(join(tmpdir(), 'occ-docker-e2e-'));
  catalogPath = join(root, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
  process.env.OCC_OPENCLAW_CATALOG = catalogPath;
  // One attempt per deploy: a failing candidate fails at once (retries are the worker's own tests).
  driver = dockerCompute();
  base = await startTestController({ compute: driver, worker: WORKER, secretKey, work: { maxAttempts: 1 } });
  current = base.controller;
}, 900_000);

afterAll(async () => {
  for (const c of await docker.listContainers({ all: true, filters: { label: labelFilter(installation) } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  for (const n of await docker.listNetworks({ filters: { label: labelFilter(installation) } })) await docker.getNetwork(n.Id).remove().catch(() => {});
  await registryRelay?.close();
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
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], Privileged: false, Init: true, PidsLimit: 512, RestartPolicy: { Name: 'unless-stopped' } });
      // The Agent's own network, never the host's; its status and gateway relay published on the host's loopback only.
      expect(info.HostConfig.NetworkMode).toBe(networkName(installation, target.agentId));
      expect(Object.keys(info.NetworkSettings.Networks)).toEqual([networkName(installation, target.agentId)]);
      expect(Object.values(info.HostConfig.PortBindings ?? {}).flat()).toEqual([{ HostIp: '127.0.0.1', HostPort: '' }, { HostIp: '127.0.0.1', HostPort: '' }]);
      expect((await networkOf(target.agentId))?.Labels).toMatchObject({ [LABELS.managedBy]: 'occ', [LABELS.installation]: installation, [LABELS.agentId]: target.agentId });
      expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
      expect(info.HostConfig.Memory).toBe(2 * 1024 ** 3);
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
    "an Agent's shell reaches neither OCC's API, PostgreSQL, nor another Agent's gateway and status ports; the controller still reads each Agent's status and the gateways serve",
    async () => {
      // A second Agent (no plugin: only its gateway matters here), on a network of its own.
      const other = await newDeployTarget(t(), { plugins: {}, values: { tools: { profile: 'coding' } } });
      const otherRevision = (await admit(t(), other)).id;
      expect(await waitTerminal(t(), other, otherRevision, DEPLOY_MS)).toMatchObject({ state: 'succeeded', active: true });
      const mine = await containerOf(first);
      const theirs = await containerOf(otherRevision);
      expect(theirs.HostConfig.NetworkMode).toBe(networkName(installation, other.agentId));
      expect((await networkOf(other.agentId))!.Id).not.toBe((await networkOf(target.agentId))!.Id);

      // OCC's API on a real port of the host's loopback, where `occ up` serves it by default.
      const api = new URL(await current.app.listen({ host: '127.0.0.1', port: 0 }));
      const postgres = new URL(testDatabaseUrl());
      const theirPorts = [publishedPort(theirs, RUNTIME_PORTS.status), publishedPort(theirs, RUNTIME_PORTS.relay)];
      const myNet = mine.NetworkSettings.Networks[networkName(installation, target.agentId)]!;
      const theirIp = theirs.NetworkSettings.Networks[networkName(installation, other.agentId)]!.IPAddress;
      // The host as an Agent can address it: its (own) loopback, the bridge's gateway, the host's address.
      const hostAddresses = ['127.0.0.1', myNet.Gateway, hostAddress()];
      const forbidden = [
        ...hostAddresses.flatMap((host) => [api.port, postgres.port || '5432', ...theirPorts].map((port) => `${host}:${port}`)),
        // The other Agent's container itself, on its own network: status, relay, gateway.
        ...[RUNTIME_PORTS.status, RUNTIME_PORTS.relay, RUNTIME_PORTS.gateway].map((port) => `${theirIp}:${port}`),
      ];
      // What must still connect, so a probe that could never connect proves nothing: its own status
      // server, and the registry relayed on the host's address (the route out).
      const allowed = [`${myNet.IPAddress}:${RUNTIME_PORTS.status}`, new URL(registryRelay.url).host];
      const node = (await docker.getImage(image).inspect()).Config.Entrypoint![0]!;
      const probe = await exec(mine.Id, connectProbeCommand(node, [...forbidden, ...allowed]));
      expect(probe.code, probe.output).toBe(0);
      const outcomes = parseConnectProbe(probe.output);
      console.log(`from inside an Agent: ${JSON.stringify(outcomes)}`);
      for (const where of forbidden) expect(outcomes[where], where).toMatch(/^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|TIMEOUT)$/);
      for (const where of allowed) expect(outcomes[where], where).toBe('CONNECTED');

      // The controller still reads both runtimes' status and their gateways answer on the host's loopback.
      expect(await live(first)).toMatchObject({ running: true, ready: true });
      expect(await live(otherRevision, other)).toMatchObject({ running: true, ready: true });
      const gatewayToken = (theirs.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
      expect(await probeGatewayReady(publishedPort(theirs, RUNTIME_PORTS.relay), gatewayToken, AbortSignal.timeout(10_000))).toBe(true);

      // Its network goes with the Agent's last container; the first Agent's stays.
      const signal = AbortSignal.timeout(60_000);
      await driver.stopRevision({ namespaceId: other.ns, agentId: other.agentId }, otherRevision, { signal });
      await driver.retireRevision({ namespaceId: other.ns, agentId: other.agentId }, otherRevision, { signal });
      expect(await networkOf(other.agentId)).toBeNull();
      expect(await networkOf(target.agentId)).not.toBeNull();
    },
    DEPLOY_MS,
  );

  it(
    '[P-5][P-6] a second revision replaces the first (Recreate): the old container stops before the new one is created (never two gateways on the Agent), and is removed once the new one is active',
    async () => {
      const since = Math.floor(Date.now() / 1000) - 1;
      const oldId = (await containerOf(first)).Id;
      const networkId = (await networkOf(target.agentId))!.Id;
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
      // Both revisions on the Agent's one network (made once, found again by name).
      expect((await containerOf(second)).NetworkSettings.Networks[networkName(installation, target.agentId)]?.NetworkID).toBe(networkId);
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
      // Its container starts again from a fresh private area: a whole prepare (its plugin installed
      // again), as long as a deploy (183 s for one in a loaded CI run), not a restart of a gateway.
      await waitFor('revision 2 back and ready', () => live(second), (v) => v.ready === true, DEPLOY_MS, 500);
      const stopped = await containerOf(candidate);
      expect(stopped.State.Running).toBe(false);
      expect(await live(candidate)).toMatchObject({ running: false, lastFailureCode: 'PLUGIN_REGISTRY_REFRESH_FAILED' });
    },
    2 * DEPLOY_MS,
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

  it(
    "an active revision's container left on the host's network by an OCC before per-Agent networks is made again on the Agent's own when OCC restarts",
    async () => {
      // What such an OCC made: the revision's name, labels and environment (no published ports), the host's network.
      const before = await containerOf(second);
      await docker.getContainer(before.Id).remove({ force: true });
      const env = (before.Config.Env ?? []).filter((e) => !/^(OCC_RUNTIME_STATUS_ADDRESS|OCC_RUNTIME_STATUS_PORT|OCC_RUNTIME_GATEWAY_PORT|OCC_DOCKER_GATEWAY_RELAY)=/.test(e));
      const legacy = await docker.createContainer({
        name: before.Name.replace(/^\//, ''),
        Image: before.Config.Image,
        User: before.Config.User,
        Env: env,
        Labels: before.Config.Labels,
        // A stand-in process: what matters is where it runs, not what.
        Entrypoint: ['sleep', '600'],
        HostConfig: { NetworkMode: 'host', ReadonlyRootfs: true, CapDrop: ['ALL'] },
      });
      await legacy.start();

      await current.close();
      current = await composeController({ database: base.database, secretKey, logger: { level: 'warn' }, compute: dockerCompute(), work: { maxAttempts: 1 }, worker: { settings: WORKER, backoff: { baseMs: 50, capMs: 500 } } });
      const own = networkName(installation, target.agentId);
      const remade = await waitFor('the revision made again on its own network', () => containerOf(second).catch(() => null), (c) => c?.HostConfig.NetworkMode === own && c.State.Running === true, 60_000, 500);
      expect(remade!.Id).not.toBe(legacy.id);
      expect(await waitFor('it to be ready', () => live(second), (v) => v.ready === true, 180_000, 1_000)).toMatchObject({ running: true, ready: true, restarts: 0 });
    },
    DEPLOY_MS,
  );

  it(
    'an Agent a scripted model drives cannot read OCC’s keys or files, list the host, or reach OCC’s API and PostgreSQL; its selected tool still runs',
    async () => {
      const model = await startScriptedModelServer();
      // The model provider is reached the way an operator's would be: through the Agent network's route out.
      const modelRelay = await relayToAgents(model.baseUrl, dockerComputeSettings({ OCC_RUNTIME_IMAGE: image }).subnets);
      try {
        writeFileSync(join(root, 'admin-api-key'), `${canary}-admin\n`, { mode: 0o600 });
        const attacker = await newDeployTarget(t(), { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values: scriptedModelConfiguration(model, { baseUrl: modelRelay.url }) });
        const revisionId = (await admit(t(), attacker)).id;
        expect(await waitTerminal(t(), attacker, revisionId, DEPLOY_MS)).toMatchObject({ state: 'succeeded' });
        const info = await containerOf(revisionId);
        const gateway = { port: publishedPort(info, RUNTIME_PORTS.relay), token: (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]! };
        const call = (name: string, args: Record<string, unknown>) =>
          callTool(model, gateway, name, args, 240_000).catch(async (error: unknown) => {
            // What the runtime said, for whoever reads the failure.
            const logs = (await docker.getContainer(info.Id).logs({ stdout: true, stderr: true, tail: 80 })) as unknown as Buffer;
            console.log(`the runtime's last lines:\n${demuxLog(logs)}`);
            throw error;
          });

        for (const path of [join(root, 'admin-api-key'), join(root, 'compute')]) expect(await call('read', { path }), path).not.toContain(canary);
        const api = new URL(await current.app.listen({ host: '127.0.0.1', port: 0 }));
        const postgres = new URL(testDatabaseUrl());
        // The runtime image has no bash or nc: Node it is, with a small heap (the gateway's own memory shares the limit).
        const reachable = new URL(modelRelay.url).host;
        const targets = [`${hostAddress()}:${api.port}`, `${hostAddress()}:${postgres.port || 5432}`, `127.0.0.1:${api.port}`, reachable];
        const script = `for (const w of ${JSON.stringify(targets)}) { const [h, p] = w.split(":"); const s = require("node:net").connect(Number(p), h); s.setTimeout(3000); s.on("connect", () => { console.log("CONNECTED " + w); s.destroy(); }); s.on("error", () => console.log("REFUSED " + w)); s.on("timeout", () => { console.log("REFUSED " + w); s.destroy(); }); }`;
        const probes = `node --max-old-space-size=32 -e '${script}'`;
        const shell = await call('exec', { command: `id -u; ls ${root} 2>&1; cat ${join(root, 'admin-api-key')} 2>&1; ${probes}; echo end-of-probe` });
        expect(shell).toContain('end-of-probe');
        expect(shell).not.toContain(canary);
        expect(shell).toMatch(/^10001$/m);
        expect(shell.match(/^CONNECTED .*$/gm)).toEqual([`CONNECTED ${reachable}`]);
        expect(shell.match(/^REFUSED /gm)).toHaveLength(3);
        expect(shell).toMatch(/No such file or directory/);
        expect(await call('fixture_echo', { input: 'still-governed' })).toContain('still-governed');
      } finally {
        await modelRelay.close();
        await model.close();
      }
    },
    DEPLOY_MS + 4 * 240_000,
  );

  it(
    'deleting the stopped Agent removes every container and the network the engine holds for it (the worker\'s remove_agent work), audited',
    async () => {
      const stopped = await request({ method: 'POST', url: `${target.url}/stop` });
      expect(stopped.status, stopped.raw).toBe(202);
      await waitFor('the stop', () => activeRevisionId(t(), target), (id) => id === null, 120_000, 500);
      // Its stopped containers (the active one, a failed candidate) and its network are still there.
      const before = (await containersOf(target.agentId)).map((c) => c.Name.replace(/^\//, ''));
      expect(before.length).toBeGreaterThan(0);
      expect(await networkOf(target.agentId)).not.toBeNull();

      const deleted = await request({ method: 'DELETE', url: target.url });
      expect(deleted.status, deleted.raw).toBe(204);
      const audited = async () =>
        (await base.database.query<{ outcome: string; details: any }>(`SELECT outcome, details FROM audit_events WHERE action = 'agents.compute_removed' AND resource_id = $1`, [target.agentId])).rows;
      const [event] = await waitFor('the removal', audited, (rows) => rows.length > 0, 120_000, 500);
      expect(await containersOf(target.agentId)).toEqual([]);
      expect(await networkOf(target.agentId)).toBeNull();
      expect((await docker.listNetworks({ filters: { label: labelFilter(installation, { agentId: target.agentId }) } }))).toEqual([]);
      expect(event!.outcome).toBe('success');
      expect(event!.details).toMatchObject({ computeDriverId: 'docker' });
      const removed = event!.details.removed as { kind: string; name: string }[];
      expect(removed.filter((r) => r.kind === 'container').map((r) => r.name).sort()).toEqual([...before].sort());
      expect(removed.filter((r) => r.kind === 'network')).toEqual([{ kind: 'network', name: networkName(installation, target.agentId) }]);
    },
    240_000,
  );
});
