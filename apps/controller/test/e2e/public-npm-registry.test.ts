import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openclawCuratedCatalog } from '@occ/policy';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { OpenClawCli, openclawEnvironment, parseJsonOutput } from '../../../runtime/src/openclaw-cli.ts';
import { revisionConfigPath } from '../../../runtime/src/revision-config.ts';
import { pinnedToolchain } from '../../../runtime/src/toolchain.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { agentPaths, revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { activeRevisionId, admit, newDeployTarget, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { eventShape, parseSse } from '../../../../test-support/sse-events.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

// The new user's deploy (issue 10): the committed curated catalog, the PUBLIC npm registry, and
// no OCC network setting at all, only what this machine's environment says (here HTTPS goes
// through a CA of its own, trusted through NODE_EXTRA_CA_CERTS). The runtime gets the
// allowlisted network variables, so npm inside it reaches the registry.
const NOSTR = openclawCuratedCatalog().plugins.find((plugin) => plugin.id === '@openclaw/nostr')!;
const SELECTION = `openclaw:${NOSTR.id}`;
const WORKER = { leaseMs: 30_000, pollMs: 50, convergencePollMs: 500 };
const OCC_NETWORK_SETTINGS = ['OCC_NPM_REGISTRY', 'OCC_RUNTIME_CA_FILE', 'OCC_RUNTIME_PROXY', 'OCC_OPENCLAW_CATALOG'];

let t: TestController;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'occ-e2e-public-'));
  const env = { ...process.env };
  for (const name of OCC_NETWORK_SETTINGS) delete env[name];
  const compute = await createComputeDriver('local', { dataDir: join(root, 'data'), env });
  if (!compute) throw new Error('no local ComputeDriver');
  t = await startTestController({ compute, worker: WORKER });
});

afterAll(async () => {
  await t?.close();
  if (root && !process.env.OCC_E2E_KEEP) rmSync(root, { recursive: true, force: true });
});

const runtimeLog = (agentId: string, revisionId: string) => readFileSync(revisionPaths(join(root, 'data', 'compute', 'local'), agentId, revisionId).logFile, 'utf8');

function runtimeEvents(agentId: string, revisionId: string): Array<{ event: string; [field: string]: unknown }> {
  return runtimeLog(agentId, revisionId)
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
    .map((line) => JSON.parse(line) as { event: string });
}

describe('a deploy from the public npm registry with no OCC network setting', () => {
  it('[O-1][O-3][K-5] openclaw:@openclaw/nostr from the curated catalog: the deploy succeeds without a warning and the plugin is installed and verified', async () => {
    expect(NOSTR).toMatchObject({ source: 'npm', package: '@openclaw/nostr' });
    for (const name of OCC_NETWORK_SETTINGS) expect(process.env[name], name).toBeUndefined();

    const target = await newDeployTarget(t, { plugins: { [SELECTION]: { enabled: true } }, values: { tools: { profile: 'coding' } } });
    const started = Date.now();
    const rev = await admit(t, target);
    // A deploy that never ends says where its runtime stood (the files are gone after the run).
    const status = await waitTerminal(t, target, rev.id, 600_000).catch((error: Error) => {
      throw new Error(`${error.message}\nthe runtime's log, last lines:\n${runtimeLog(target.agentId, rev.id).split('\n').slice(-40).join('\n')}`);
    });
    console.log(`deploy of ${NOSTR.package}@${NOSTR.version} from the public registry: ${Date.now() - started} ms`);
    expect(status).toMatchObject({ revisionId: rev.id, state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
    expect(await activeRevisionId(t, target)).toBe(rev.id);

    // The runtime installed the catalog's version and verified it by native inspection (id,
    // package, version, the catalog's recorded integrity, source inside the install path).
    const events = runtimeEvents(target.agentId, rev.id);
    expect(events.filter((e) => e.event === 'plugin.install.done')).toEqual([expect.objectContaining({ selectionKey: SELECTION })]);
    expect(events.filter((e) => e.event === 'plugin.verify.done')).toEqual([expect.objectContaining({ selectionKey: SELECTION })]);
    expect(events.filter((e) => e.event === 'plugin.install.rejected' || e.event === 'plugin.install.unreachable')).toEqual([]);
    // The deployment's events, from the runtime's typed progress: the install from the public registry by its selection key.
    const stream = parseSse((await t.request({ method: 'GET', url: `${target.url}/deployments/${rev.id}/events` })).raw);
    expect(stream.filter((e) => e.event === 'step' && e.data.pluginId !== undefined).map((e) => `${e.data.pluginId} ${e.data.result}`)).toEqual([`${SELECTION} done`]);
    expect(stream.map(eventShape).slice(-2)).toEqual(['step gateway', 'succeeded REVISION_ACTIVATED']);

    // Read back with the real CLI from the Agent's state and this revision's config: installed from npm at the pinned version, enabled.
    const toolchain = pinnedToolchain();
    const agent = agentPaths(join(root, 'data', 'compute', 'local'), target.agentId);
    const cli = new OpenClawCli(
      toolchain,
      openclawEnvironment({
        toolchain,
        path: process.env.PATH ?? '',
        home: agent.home,
        lang: 'C.UTF-8',
        stateDir: agent.state,
        configPath: revisionConfigPath(revisionPaths(join(root, 'data', 'compute', 'local'), target.agentId, rev.id).dir),
        npmRegistry: null,
        network: runtimeNetworkEnvironment(process.env),
      }),
    );
    const outcome = await cli.run(['config', 'get', 'plugins', '--json'], { timeoutMs: 120_000 });
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw new Error(`config get plugins: ${JSON.stringify(outcome)}`);
    const parsed = parseJsonOutput(outcome.stdout);
    if (!parsed.ok) throw new Error('config get plugins: malformed output');
    const plugins = parsed.value as { entries: Record<string, { enabled?: boolean }> };
    expect(plugins.entries[NOSTR.pluginId]).toMatchObject({ enabled: true });
  });
});
