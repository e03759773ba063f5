// The Codex case of the deploy bench: `POST deploy` → `succeeded` for a `harness: codex` Agent
// selecting a plugin of the local marketplace fixture, through OCC (in-process controller and
// worker, local ComputeDriver, the real runtime, app-server and gateway), against its floor: the
// same app-server and gateway steps run directly by a script (no status server, no queue, no
// batched reads, plan, inventory, post-install reads or readback). Then the time of one Codex turn
// through OCC against the same turn sent straight to the gateway, and against the same app-server
// answering a turn alone (bench/codex-turn.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectAppServer } from '../apps/runtime/src/codex/app-server-connection.ts';
import { startListeningAppServer } from '../apps/runtime/src/codex/app-server-listener.ts';
import { freeLoopbackPort } from '../apps/runtime/src/free-port.ts';
import { probeGatewayReady } from '../apps/runtime/src/gateway-probe.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { openclawEnvironment } from '../apps/runtime/src/openclaw-cli.ts';
import { pinnedToolchain } from '../apps/runtime/src/toolchain.ts';
import { startBenchController, waitForDeployment } from './bench-controller.ts';
import { benchCodexTurn } from './codex-turn.ts';
import { median } from './figures.ts';
import { firstEventAt, runtimeLogEvents } from '../test-support/local-gateway.ts';
import { stepTimes } from './runtime-log.ts';

const MARKETPLACE_ROOT = fileURLToPath(new URL('../test-support/codex-marketplace', import.meta.url));
const MARKETPLACE_FILE = join(MARKETPLACE_ROOT, '.agents', 'plugins', 'marketplace.json');
const SELECTIONS = { 'codex:good@occ-fixtures': { enabled: true } };
const LOOK_EVERY_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Figures {
  totalMs: number;
  steps: Record<string, number>;
  /** OCC only: POST deploy → each of the runtime's milestones (TIMELINE), from its own log. */
  timeline?: Record<string, number>;
}

/** The Codex runtime's milestones, in the order one startup passes them (apps/runtime/src/main.ts). */
const TIMELINE = ['startup.serving', 'codex.harness.installed', 'codex.peer.started', 'codex.peer.gate', 'gateway.started', 'startup.ready'] as const;

/** Runs a command to its end, output to `logFd`; a non-zero exit throws. */
function runToEnd(command: string, args: string[], env: Record<string, string>, logFd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', logFd, logFd] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.slice(1, 3).join(' ')} exited ${code}`))));
  });
}

/** The floor: CODEX_HOME, app-server, list/read/install/one config write, gateway until /readyz. */
async function runFloor(dir: string): Promise<Figures> {
  const toolchain = pinnedToolchain();
  const codexHome = join(dir, 'codex-home');
  const stateDir = join(dir, 'state');
  const home = join(dir, 'home');
  for (const d of [codexHome, stateDir, home, join(stateDir, 'extensions')]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const logFd = openSync(join(dir, 'floor.log'), 'a');
  const steps: Record<string, number> = {};
  const step = async <T>(name: string, run: () => Promise<T> | T): Promise<T> => {
    const started = performance.now();
    const result = await run();
    steps[name] = (steps[name] ?? 0) + performance.now() - started;
    return result;
  };
  const started = performance.now();
  let server: Awaited<ReturnType<typeof startListeningAppServer>> | undefined;
  let gateway: ReturnType<typeof spawn> | undefined;
  try {
    writeFileSync(
      join(codexHome, 'config.toml'),
      'cli_auth_credentials_store = "ephemeral"\n[features]\napps = true\nplugins = true\nremote_plugin = true\n[apps._default]\nenabled = false\n',
      { mode: 0o600 },
    );
    const credential = randomBytes(32).toString('hex');
    const network = runtimeNetworkEnvironment(process.env);
    server = await step('app-server', () =>
      startListeningAppServer({
        codexEntry: toolchain.codexEntry,
        nodeBinary: toolchain.nodeBinary,
        cwd: stateDir,
        credential,
        env: { ...network, PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: codexHome },
      }),
    );
    const client = await step('app-server', () => connectAppServer(server!.url, credential));
    await step('list-read', async () => {
      await client.request('plugin/list', { cwds: [MARKETPLACE_ROOT] });
      await client.request('plugin/read', { marketplacePath: MARKETPLACE_FILE, pluginName: 'good' });
    });
    await step('install', () => client.request('plugin/install', { marketplacePath: MARKETPLACE_FILE, pluginName: 'good' }));
    await step('write-config', () =>
      client.request('config/batchWrite', { edits: [{ keyPath: 'apps._default', value: { enabled: false }, mergeStrategy: 'replace' }], reloadUserConfig: true }),
    );
    await client.close();
    const configPath = join(dir, 'openclaw.json');
    const env = openclawEnvironment({ toolchain, path: process.env.PATH ?? '', home, lang: 'C.UTF-8', stateDir, configPath, npmRegistry: null, network });
    // The harness plugin as a script would install it: one `plugins install` from the set-up npm cache.
    await step('harness-install', () =>
      runToEnd(
        toolchain.nodeBinary,
        [toolchain.openclawEntry, 'plugins', 'install', `npm:${toolchain.codexHarness.spec}`, '--pin', '--force'],
        { ...env, npm_config_cache: toolchain.codexHarness.npmCache, npm_config_offline: 'true', npm_config_registry: toolchain.codexHarness.registry },
        logFd,
      ),
    );
    writeFileSync(
      configPath,
      JSON.stringify({
        plugins: {
          entries: {
            codex: {
              enabled: true,
              config: {
                appServer: { transport: 'websocket', url: server.url, authToken: '${BENCH_APP_SERVER_TOKEN}' },
                codexPlugins: { enabled: true, allow_all_plugins: false, plugins: { 'good@occ-fixtures': { enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' } } },
              },
            },
          },
        },
      }),
      { mode: 0o600 },
    );
    const token = randomBytes(24).toString('hex');
    await step('gateway-ready', async () => {
      const port = await freeLoopbackPort();
      gateway = spawn(toolchain.nodeBinary, [toolchain.openclawEntry, 'gateway', 'run', '--bind', 'loopback', '--port', String(port), '--auth', 'token', '--allow-unconfigured'], {
        env: { ...env, OPENCLAW_GATEWAY_TOKEN: token, BENCH_APP_SERVER_TOKEN: credential },
        stdio: ['ignore', logFd, logFd],
      });
      for (;;) {
        // A probe cut by its 10 s bound (a loaded machine) is "not ready yet", not a failed floor.
        if (await probeGatewayReady(port, token, AbortSignal.timeout(10_000)).catch(() => false)) return;
        if (gateway.exitCode !== null) throw new Error(`gateway exited ${gateway.exitCode}`);
        await sleep(LOOK_EVERY_MS);
      }
    });
    return { totalMs: performance.now() - started, steps };
  } finally {
    const g = gateway as ReturnType<typeof spawn> | undefined;
    if (g && g.exitCode === null && g.signalCode === null) {
      const gone = new Promise<void>((resolve) => g.once('exit', () => resolve()));
      g.kill('SIGTERM');
      await gone;
    }
    await server?.stop();
    closeSync(logFd);
  }
}

/** One Codex deploy through OCC: fresh controller, database and data directory. */
async function runOcc(): Promise<Figures> {
  const bench = await startBenchController({ ...process.env, OCC_CODEX_MARKETPLACES: MARKETPLACE_ROOT }, { pollMs: 50, convergencePollMs: 100 });
  try {
    const ns = bench.namespaceId;
    const cfg = await bench.call('POST', `/namespaces/${ns}/configurations`, { name: 'bench', values: {} }, 201);
    const agent = await bench.call('POST', `/namespaces/${ns}/agents`, { name: 'bench-codex', configurationId: cfg.id, harness: 'codex', plugins: SELECTIONS }, 201);
    const agentUrl = `/namespaces/${ns}/agents/${agent.id}`;
    const startedAt = Date.now();
    const started = performance.now();
    const revision = await bench.call('POST', `${agentUrl}/deploy`, undefined, 202);
    const status = await waitForDeployment(bench, agentUrl, revision.id, LOOK_EVERY_MS);
    if (status.state !== 'succeeded') throw new Error(`codex deploy ended ${JSON.stringify(status)}`);
    const totalMs = performance.now() - started;
    const events = runtimeLogEvents(bench.dataDir, agent.id, revision.id);
    const timeline = Object.fromEntries(TIMELINE.map((name) => [name, firstEventAt(events, name, startedAt)]).filter(([, at]) => !Number.isNaN(at)));
    return { totalMs, steps: stepTimes(events), timeline };
  } finally {
    await bench.close();
  }
}

const sec = (ms: number) => (ms / 1000).toFixed(2);

/**
 * The Codex case: BENCH_DEPLOYS runs each of floor and OCC, alternating; prints medians and the
 * ratio. Then BENCH_TURNS rounds of one turn each way (after a first one) on one more deployed Agent:
 * through OCC, to its gateway, to Codex alone.
 */
export async function benchDeployCodex(runs = Number(process.env.BENCH_DEPLOYS ?? 3), turns = Number(process.env.BENCH_TURNS ?? 5)): Promise<void> {
  const floors: Figures[] = [];
  const occ: Figures[] = [];
  for (let i = 0; i < runs; i += 1) {
    const dir = mkdtempSync(join(tmpdir(), 'occ-bench-codex-floor-'));
    try {
      floors.push(await runFloor(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    occ.push(await runOcc());
    console.log(
      `codex run ${i + 1}: floor ${sec(floors.at(-1)!.totalMs)} s (${Object.entries(floors.at(-1)!.steps)
        .map(([k, v]) => `${k} ${sec(v)}`)
        .join(', ')}); OCC ${sec(occ.at(-1)!.totalMs)} s (${Object.entries(occ.at(-1)!.timeline ?? {})
        .map(([k, v]) => `${k} at ${sec(v)}`)
        .join(', ')}; runtime steps ${Object.entries(occ.at(-1)!.steps)
        .map(([k, v]) => `${k} ${sec(v)}`)
        .join(', ')})`,
    );
  }
  const floor = median(floors.map((f) => f.totalMs));
  const ours = median(occ.map((f) => f.totalMs));
  console.log(`\nCodex deploy, one local-marketplace plugin, fresh state each run, ${runs} runs each, alternating`);
  console.log(`floor (app-server + gateway steps by a script)   median ${sec(floor)} s`);
  console.log(`OCC POST deploy → succeeded                      median ${sec(ours)} s   ratio OCC/floor ${(ours / floor).toFixed(2)}`);
  if (turns < 1) return;
  const turn = await benchCodexTurn(MARKETPLACE_ROOT, SELECTIONS, turns);
  const turnCodex = median(turn.codexMs);
  const turnFloor = median(turn.floorMs);
  const turnOcc = median(turn.occMs);
  const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(
    `\nCodex turn on a deployed Agent (codex_pat signed in at the fake hosted service; deployed in ${sec(turn.deployMs)} s), scripted model, ${turns} rounds after a first turn, each way in rotating order`,
  );
  console.log(`first turn: through OCC ${turn.firstMs.toFixed(0)} ms (cold Codex thread); Codex alone ${turn.codexFirstMs.toFixed(0)} ms`);
  console.log(`Codex alone (app-server thread/start + turn/start → turn/completed)   median ${turnCodex.toFixed(0)} ms   (${ms(turn.codexMs)})`);
  console.log(
    `floor (POST /v1/chat/completions to the gateway)                     median ${turnFloor.toFixed(0)} ms   (${ms(turn.floorMs)})   ratio floor/Codex alone ${(turnFloor / turnCodex).toFixed(2)}`,
  );
  console.log(
    `OCC POST …/messages → done                                           median ${turnOcc.toFixed(0)} ms   (${ms(turn.occMs)})   ratio OCC/floor ${(turnOcc / turnFloor).toFixed(2)}   OCC/Codex alone ${(turnOcc / turnCodex).toFixed(2)}`,
  );
}
