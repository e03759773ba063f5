import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOVERNANCE_TOOLS, OFFICIAL_EXTERNAL_PLUGIN_IDS } from '@occ/policy';
import { activeRevisionId, admit, deploymentStatus, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';
import { startCountingRegistry, type CountingRegistry } from '../../../../test-support/counting-registry.ts';
import { eventShape, parseSse } from '../../../../test-support/sse-events.ts';

// Through the HTTP API with the real local ComputeDriver: real runtime processes, the pinned
// OpenClaw CLI and gateway, a real npm registry. One Agent lives through the whole file:
// first deploy → a replacing revision (prepared beside the serving one) → its gateway killed → OCC restarted.
const GOOD = FIXTURE_PLUGINS.good;
const DEPLOY_MS = 600_000;

let e2e: E2E;
let target: DeployTarget;
let rev1: string;
let rev2: string;
/** Host pids: a confined runtime and its gateway name pids of their own pid namespace (e2e.hostPid). */
let rev1RuntimePid: number;

let registry: CountingRegistry;

beforeAll(async () => {
  // The faster redeploy, opt-in (docs/deployments.md): the default order is proven by the other local e2e files.
  // The registry is seen through a counting front: which tarballs npm downloaded.
  e2e = await startE2E({
    env: { OCC_LOCAL_REDEPLOY: 'prepare-beside' },
    registry: async (fixtureUrl) => (registry = await startCountingRegistry(fixtureUrl)).url,
  });
});

afterAll(async () => {
  await e2e?.close();
  await registry?.close();
});

const agentRef = () => ({ namespaceId: target.ns, agentId: target.agentId });
const describeRuntime = (revisionId: string) => e2e.compute().describeRuntime(agentRef(), revisionId);
const endpointOf = (revisionId: string) => JSON.parse(readFileSync(join(e2e.revisionDir(target, revisionId), 'endpoint.json'), 'utf8')) as { pid: number; startupId: string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of the gateways the revision's runtimes started, oldest first (from the runtime's own log: pids inside its sandbox). */
const gatewayPids = (revisionId: string) =>
  e2e
    .events(target, revisionId)
    .filter((e) => e.event === 'gateway.started')
    .map((e) => e.pid as number);

/** The host pid of a live process the revision's runtime names `pid`; fails when none lives. */
function hostPid(revisionId: string, pid: number): number {
  const found = e2e.hostPid(target, revisionId, pid);
  if (found === null) throw new Error(`no live process is pid ${pid} of revision ${revisionId}'s runtime`);
  return found;
}
/** The host pids of the revision's runtime (endpoint.json) and of its latest gateway, both live now. */
const runtimeHostPid = (revisionId: string) => hostPid(revisionId, endpointOf(revisionId).pid);
const gatewayHostPid = (revisionId: string) => hostPid(revisionId, gatewayPids(revisionId).at(-1)!);

async function deployAndSettle(): Promise<{ id: string; status: any }> {
  const rev = await admit(e2e.t, target);
  const status = await waitTerminal(e2e.t, target, rev.id, DEPLOY_MS);
  return { id: rev.id, status };
}

async function runtimeLogs(revisionId: string, tail: number) {
  const res = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=${tail}` });
  expect(res.status).toBe(200);
  return res.body.data as { lines: string[]; truncated: boolean };
}

describe('an OpenClaw Agent on the local ComputeDriver, through the HTTP API', () => {
  it('[O-1][O-2][O-3][A-1][P-1][P-7][N-1][N-2][N-3][N-4][N-5][N-7][S-1][S-2][K-5][K-7] a bundled and an npm plugin with disabled tools and an operator deny: the deploy succeeds and the gateway runs exactly the admitted policy', async () => {
    target = await newDeployTarget(e2e.t, {
      plugins: {
        'file-transfer': { enabled: true, tools: { file_write: { enabled: false } } },
        [`openclaw:${GOOD.package}`]: {
          enabled: true,
          toolDefaults: { enabled: true, approval: 'none' },
          tools: { fixture_write: { enabled: false }, fixture_clock: { approval: 'provider_default' } },
        },
      },
      values: { tools: { profile: 'coding', deny: ['exec'] } },
    });
    const started = Date.now();
    const { id, status } = await deployAndSettle();
    console.log(`first deploy (1 npm install + 1 bundled plugin): ${Date.now() - started} ms`);
    rev1 = id;
    expect(status).toMatchObject({ revisionId: rev1, state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
    expect(registry.tarballGets(GOOD.package)).toBe(1);
    expect(await activeRevisionId(e2e.t, target)).toBe(rev1);
    // The deployment's events are the real runtime's typed progress (its status, as the worker
    // stored it): every step in order, the npm install by its selection key.
    const stream = parseSse((await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${rev1}/events` })).raw);
    expect(stream.filter((e) => e.event === 'step' && e.data.pluginId !== undefined).map((e) => `${e.data.pluginId} ${e.data.result}`)).toEqual([`openclaw:${GOOD.package} done`]);
    expect(stream.map(eventShape)).toEqual([
      'admitted',
      'claimed 1',
      'step plan',
      'step write-config',
      'step detect-install-flags',
      `step install openclaw:${GOOD.package}`,
      'step install',
      'step restore-config',
      'step registry-refresh',
      'step verify-installs',
      'step verify-config',
      'step gateway',
      'succeeded REVISION_ACTIVATED',
    ]);

    // The gateway's effective configuration, read with the real CLI from the Agent's state and
    // this revision's config: grants into alsoAllow (no operator allow), profile and the operator's
    // deny kept, disabled tools denied natively.
    expect(await e2e.configGet(target, rev1, 'tools')).toEqual({
      profile: 'coding',
      alsoAllow: ['file-transfer', GOOD.pluginId],
      // The governance tools the Configuration does not grant follow (packages/policy, governance.ts).
      deny: ['exec', 'file_write', 'fixture_write', ...GOVERNANCE_TOOLS],
      // The runtime's quiet default: the file tools stay in the workspace (docs/security.md).
      fs: { workspaceOnly: true },
    });
    const plugins = (await e2e.configGet(target, rev1, 'plugins')) as { entries: Record<string, { enabled?: boolean }>; deny?: string[] };
    const managed = Object.entries(plugins.entries)
      .filter(([pluginId, entry]) => entry.enabled !== undefined && !OFFICIAL_EXTERNAL_PLUGIN_IDS.includes(pluginId))
      .map(([pluginId, entry]) => [pluginId, entry.enabled]);
    expect(Object.fromEntries(managed)).toEqual({ 'file-transfer': true, [GOOD.pluginId]: true });
    // The official plugins OpenClaw would install by itself when it finds them "configured" are off.
    for (const pluginId of OFFICIAL_EXTERNAL_PLUGIN_IDS) expect(plugins.entries[pluginId]?.enabled, pluginId).toBe(false);
    // Every other bundled tool plugin is denied (docs/plugin-policy.md, "Only what was selected").
    expect(plugins.deny).toEqual([
      'a2a',
      'browser',
      'canvas',
      'llm-task',
      'memory-core',
      'memory-wiki',
      'ollama',
      'onepassword',
      'reef',
      'talk-voice',
      'telegram',
      'workboard',
      'xai',
    ]);

    // The runtime is ready for this revision and its files are private.
    const described = await describeRuntime(rev1);
    expect(described).toEqual({
      running: true,
      phase: 'ready',
      startupId: endpointOf(rev1).startupId,
      restarts: 0,
      ready: true,
      deliveredSecrets: [],
      lastFailureCode: null,
      loaded: expect.objectContaining({ scheduledJobs: [] }),
    });
    rev1RuntimePid = runtimeHostPid(rev1);
    expect(alive(rev1RuntimePid)).toBe(true);
    const dir = e2e.revisionDir(target, rev1);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'manifest.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'openclaw.json')).mode & 0o777).toBe(0o600);

    // Its log through the API: the last lines of a real runtime.
    const logs = await runtimeLogs(rev1, 20);
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines.length).toBeLessThanOrEqual(20);
    expect(logs.truncated).toBe(true);
    expect(gatewayPids(rev1)).toHaveLength(1);
  });

  it('[K-3][K-4][K-5][N-1][P-7][K-7][S-1] a second revision replaces the first, prepared beside it (OCC_LOCAL_REDEPLOY=prepare-beside): only the new runtime runs, the first revision stays stored; with bundled plugins only it installs nothing and removes what the first installed from the Agent state', async () => {
    const patched = await e2e.t.request({ method: 'PATCH', url: target.url, body: { plugins: { 'llm-task': { enabled: true } } } });
    expect(patched.status).toBe(200);
    expect(gatewayPids(rev1)).toHaveLength(1);
    const oldGateway = gatewayHostPid(rev1);
    // While it deploys, both revisions' live views are sampled: which gateway serves, and when.
    const samples: Array<{ oneReady: boolean; twoRunning: boolean; twoReady: boolean }> = [];
    let candidate: string | null = null;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const one = await describeRuntime(rev1);
        const two = candidate === null ? null : await describeRuntime(candidate);
        samples.push({ oneReady: one.ready, twoRunning: two?.running ?? false, twoReady: two?.ready ?? false });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const admitted = await admit(e2e.t, target);
    candidate = admitted.id;
    const status = await waitTerminal(e2e.t, target, admitted.id, DEPLOY_MS).finally(() => (sampling = false));
    await sampler;
    rev2 = admitted.id;
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, warnings: [] });
    // The P-5/P-6 difference of prepare-beside (docs/specification-differences.md): the candidate
    // prepared beside the serving revision, whose gateway answered meanwhile; never did both answer.
    expect(samples.some((sample) => sample.oneReady && sample.twoRunning)).toBe(true);
    expect(samples.filter((sample) => sample.oneReady && sample.twoReady)).toEqual([]);
    // Recreate, in the runtimes' own words: prepared, then the old runtime stopped, then the
    // candidate went on (its stale uninstall) and started its gateway.
    const at = (revisionId: string, event: string) => e2e.events(target, revisionId).find((e) => e.event === event)?.time as string;
    const order = [
      at(rev2, 'startup.prepared'),
      at(rev1, 'runtime.stopping'),
      at(rev1, 'gateway.stopped'),
      at(rev2, 'startup.proceeding'),
      at(rev2, 'plugin.uninstall.stale'),
      at(rev2, 'gateway.started'),
    ];
    expect(order.every((time) => typeof time === 'string')).toBe(true);
    expect([...order].sort()).toEqual(order);
    expect(await activeRevisionId(e2e.t, target)).toBe(rev2);
    expect((await deploymentStatus(e2e.t, target, rev1)).active).toBe(false);

    // Only the new revision's runtime and gateway run.
    expect(alive(rev1RuntimePid)).toBe(false);
    expect(alive(oldGateway!)).toBe(false);
    expect(await describeRuntime(rev1)).toEqual({
      running: false,
      phase: null,
      startupId: null,
      restarts: 0,
      ready: false,
      deliveredSecrets: [],
      lastFailureCode: null,
      loaded: null,
    });
    expect(await describeRuntime(rev2)).toMatchObject({ running: true, phase: 'ready' });
    expect(alive(runtimeHostPid(rev2))).toBe(true);
    // No local marker decides what runs after a restart: the database's pointer does.
    expect(existsSync(join(e2e.dataDir, 'compute', 'local', 'agents', target.agentId, 'active'))).toBe(false);

    // The first revision stays stored: in the API and its files on disk.
    const stored = await e2e.t.request({ method: 'GET', url: `${target.url}/revisions/${rev1}` });
    expect(stored.status).toBe(200);
    const dir1 = e2e.revisionDir(target, rev1);
    for (const file of ['manifest.json', 'openclaw.json', 'logs/runtime.log']) expect(existsSync(join(dir1, file))).toBe(true);

    // The new revision's policy, on the same Agent state: the npm plugin the first installed is gone.
    expect(await e2e.configGet(target, rev2, 'tools')).toEqual({ profile: 'coding', alsoAllow: ['llm-task'], deny: ['exec', ...GOVERNANCE_TOOLS], fs: { workspaceOnly: true } });
    expect(e2e.events(target, rev2).filter((e) => e.event === 'plugin.install.start')).toEqual([]);
    expect(e2e.events(target, rev2).filter((e) => e.event === 'plugin.uninstall.stale')).toEqual([expect.objectContaining({ pluginIds: [GOOD.pluginId] })]);
    // OpenClaw's own registry of the Agent's state holds no install record any more, stored or current.
    const registryState = (await e2e.openclawJson(target, rev2, ['plugins', 'registry'])) as Record<'persisted' | 'current', { installRecords: object }>;
    expect(registryState.persisted.installRecords).toEqual({});
    expect(registryState.current.installRecords).toEqual({});
  });

  it('[S-2][K-10][K-11] kill -9 of the gateway: the runtime comes back with a new startup and the status is recomputed', async () => {
    const before = await describeRuntime(rev2);
    expect(before).toMatchObject({ running: true, phase: 'ready' });
    const gateways = gatewayPids(rev2);
    const gateway = gatewayHostPid(rev2);
    expect(alive(gateway)).toBe(true);
    process.kill(gateway, 'SIGKILL');
    const started = Date.now();

    const after = await waitFor(
      'the runtime to come back ready',
      () => describeRuntime(rev2),
      (d) => d.running && d.phase === 'ready' && d.startupId !== null && d.startupId !== before.startupId,
      DEPLOY_MS,
      1_000,
    );
    console.log(`gateway killed → runtime ready again: ${Date.now() - started} ms`);
    expect(after.restarts).toBe(before.restarts + 1);
    expect(after.startupId).toBe(endpointOf(rev2).startupId);
    // A new gateway serves.
    await waitFor(
      'a new gateway',
      async () => gatewayPids(rev2),
      (pids) => pids.length > gateways.length,
      120_000,
      500,
    );
    expect(alive(gatewayHostPid(rev2))).toBe(true);
    expect(gatewayHostPid(rev2)).not.toBe(gateway);
    expect(alive(gateway)).toBe(false);

    // The deployment's stored outcome is unchanged; the log tells the story.
    expect(await deploymentStatus(e2e.t, target, rev2)).toMatchObject({ state: 'succeeded', active: true, warnings: [] });
    const logs = await runtimeLogs(rev2, 1000);
    expect(logs.lines.join('\n')).toMatch(/runtime exited unexpectedly \(code 1\)/);
    expect(logs.lines.join('\n')).toMatch(/restarting in \d+ ms \(restart 1\)/);
    // The runtime saw its gateway die of the signal before it ended itself (code 1).
    expect(e2e.events(target, rev2).filter((e) => e.event === 'gateway.exited')).toEqual(expect.arrayContaining([expect.objectContaining({ signal: 'SIGKILL' })]));
  });

  it('[S-2][K-7] OCC restarts: the active Agent runs again', async () => {
    const before = endpointOf(rev2);
    const oldRuntime = runtimeHostPid(rev2);
    // null: no gateway of this runtime lives now (only when the step before left it dead).
    const oldGateway = e2e.hostPid(target, rev2, gatewayPids(rev2).at(-1)!);
    const gatewaysBefore = gatewayPids(rev2).length;
    const started = Date.now();
    await e2e.restartOcc();
    // Closing OCC stopped the runtime and its gateway; the new OCC brings the active revision back.
    expect(alive(oldRuntime)).toBe(false);
    expect(oldGateway !== null && alive(oldGateway)).toBe(false);
    const after = await waitFor(
      'the active runtime after the restart',
      () => describeRuntime(rev2),
      (d) => d.running && d.phase === 'ready' && d.startupId !== null && d.startupId !== before.startupId,
      DEPLOY_MS,
      1_000,
    );
    console.log(`OCC restart → active runtime ready: ${Date.now() - started} ms`);
    expect(after.startupId).toBe(endpointOf(rev2).startupId);
    expect(alive(runtimeHostPid(rev2))).toBe(true);
    // A new gateway.started (inside a new sandbox its pid may repeat the old one's number; its host pid does not).
    await waitFor(
      'a new gateway',
      async () => gatewayPids(rev2).length,
      (count) => count > gatewaysBefore,
      120_000,
      500,
    );
    expect(alive(gatewayHostPid(rev2))).toBe(true);
    expect(gatewayHostPid(rev2)).not.toBe(oldGateway);
    // The old revision stays down; the API (new controller, same database) still reports the deployment.
    expect(await describeRuntime(rev1)).toMatchObject({ running: false });
    expect(await activeRevisionId(e2e.t, target)).toBe(rev2);
    expect(await deploymentStatus(e2e.t, target, rev2)).toMatchObject({ state: 'succeeded', active: true });
    expect((await runtimeLogs(rev2, 20)).lines.length).toBeGreaterThan(0);
  });

  it('a second Agent selecting the same npm plugin installs it from the installation’s npm content store: verified as pinned, not downloaded again', async () => {
    const second = await newDeployTarget(e2e.t, { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values: { tools: { profile: 'coding' } } });
    const revision = await admit(e2e.t, second);
    expect(await waitTerminal(e2e.t, second, revision.id, DEPLOY_MS)).toMatchObject({ state: 'succeeded', warnings: [] });
    // Its runtime copied the store (the first Agent's tarball) into its own npm cache; the install
    // was verified like any other (the pinned integrity), and npm took the tarball from that cache.
    expect(e2e.events(second, revision.id).filter((e) => e.event === 'npm.content.seeded')).toEqual([expect.objectContaining({ files: 1 })]);
    expect(e2e.events(second, revision.id).filter((e) => e.event === 'plugin.install.done')).toEqual([expect.objectContaining({ selectionKey: `openclaw:${GOOD.package}` })]);
    expect(registry.tarballGets(GOOD.package)).toBe(1);
  });
});
