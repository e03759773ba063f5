import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginMap } from '@occ/contracts';
import { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from '../apps/controller/src/worker/worker-deps.ts';
import { FIXTURE_PLUGINS, startFixtureRegistry, type FixtureRegistry } from '../test-support/npm-registry.ts';
import { startBenchController, waitForDeployment } from './bench-controller.ts';
import { runFloor, type FloorFigures } from './deploy-floor.ts';
import { median, seconds as sec } from './figures.ts';
import { firstEventAt, runtimeLogEvents } from '../test-support/local-gateway.ts';
import { stepTimes } from './runtime-log.ts';

// Two plugins: the npm fixture `good` (installed from verdaccio) and the bundled `file-transfer`.
const GOOD = FIXTURE_PLUGINS.good;
const SELECTIONS: PluginMap = {
  'file-transfer': { enabled: true, toolDefaults: { enabled: true, approval: 'none' } },
  [`openclaw:${GOOD.package}`]: { enabled: true, toolDefaults: { enabled: true, approval: 'none' } },
} as PluginMap;
const CONFIGURATION = { tools: { profile: 'coding' } };
/** How often the bench (and the floor script) look: fine enough not to blur a deploy of seconds. */
const LOOK_EVERY_MS = 100;

interface OccFigures {
  totalMs: number;
  /** POST deploy → the runtime process serving its status (queue claim, staging, spawn, tsx start). */
  toRuntimeMs: number;
  /** POST deploy → the runtime's status `ready` (its prepare done, the gateway about to start). */
  toPreparedMs: number;
  /** The runtime's own step timings. */
  steps: Record<string, number>;
}

/** One deploy through OCC: a fresh controller, database and data directory; POST deploy → `succeeded`. */
async function runOcc(registry: FixtureRegistry, catalogPath: string, worker: Partial<WorkerSettings>): Promise<OccFigures> {
  const bench = await startBenchController({ ...process.env, OCC_OPENCLAW_CATALOG: catalogPath, OCC_NPM_REGISTRY: registry.url }, worker);
  try {
    const ns = bench.namespaceId;
    const cfg = await bench.call('POST', `/namespaces/${ns}/configurations`, { name: 'bench', values: CONFIGURATION }, 201);
    const agent = await bench.call('POST', `/namespaces/${ns}/agents`, { name: 'bench-agent', configurationId: cfg.id, harness: 'openclaw', plugins: SELECTIONS }, 201);
    const agentUrl = `/namespaces/${ns}/agents/${agent.id}`;

    const startedAt = Date.now();
    const started = performance.now();
    const revision = await bench.call('POST', `${agentUrl}/deploy`, undefined, 202);
    const status = await waitForDeployment(bench, agentUrl, revision.id, LOOK_EVERY_MS);
    const totalMs = performance.now() - started;
    if (status.state !== 'succeeded') throw new Error(`deploy ended ${JSON.stringify(status)}`);

    const events = runtimeLogEvents(bench.dataDir, agent.id, revision.id);
    return { totalMs, toRuntimeMs: firstEventAt(events, 'startup.serving', startedAt), toPreparedMs: firstEventAt(events, 'startup.ready', startedAt), steps: stepTimes(events) };
  } finally {
    await bench.close();
  }
}

/**
 * Deploy latency with two plugins (npm `good` from a local verdaccio + bundled `file-transfer`):
 * `POST deploy` → `succeeded` through OCC (in-process controller and worker, the local
 * ComputeDriver, the real runtime, CLI and gateway) against the floor — the same OpenClaw CLI
 * steps run directly by a script — alternating, BENCH_DEPLOYS times each.
 */
export async function benchDeploy(runs = Number(process.env.BENCH_DEPLOYS ?? 3)): Promise<void> {
  const registry = await startFixtureRegistry();
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-deploy-'));
  const saved = { ...process.env };
  try {
    const catalogPath = join(dir, 'catalog.json');
    writeFileSync(catalogPath, JSON.stringify(registry.catalog));
    // The controller's openclaw-curated PluginDriver reads the same catalog at startup.
    process.env.OCC_OPENCLAW_CATALOG = catalogPath;
    const tight = process.env.BENCH_TIGHT_POLL !== '0';
    const variants: { name: string; worker: Partial<WorkerSettings> }[] = [
      { name: `OCC (worker defaults: poll ${DEFAULT_WORKER_SETTINGS.pollMs} ms, convergence ${DEFAULT_WORKER_SETTINGS.convergencePollMs} ms)`, worker: {} },
      ...(tight ? [{ name: 'OCC (tight worker polls: 50 ms / 100 ms)', worker: { pollMs: 50, convergencePollMs: 100 } }] : []),
    ];
    const floors: FloorFigures[] = [];
    const occ: OccFigures[][] = variants.map(() => []);
    for (let i = 0; i < runs; i += 1) {
      const floorDir = mkdtempSync(join(dir, 'floor-'));
      const floor = await runFloor({
        dir: floorDir,
        catalog: registry.catalog,
        registryUrl: registry.url,
        selections: SELECTIONS,
        configuration: CONFIGURATION,
        probeEveryMs: LOOK_EVERY_MS,
      });
      rmSync(floorDir, { recursive: true, force: true });
      floors.push(floor);
      console.log(
        `run ${i + 1}: floor ${sec(floor.totalMs)} s  (${Object.entries(floor.steps)
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
          .join(', ')})`,
      );
      for (const [v, variant] of variants.entries()) {
        const figures = await runOcc(registry, catalogPath, variant.worker);
        occ[v]!.push(figures);
        console.log(
          `run ${i + 1}: ${variant.name}: ${sec(figures.totalMs)} s  (runtime up ${(figures.toRuntimeMs / 1000).toFixed(2)}, status ready ${(figures.toPreparedMs / 1000).toFixed(2)}; ` +
            `steps ${Object.entries(figures.steps)
              .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(2)}`)
              .join(', ')})`,
        );
      }
    }
    const floorMedian = median(floors.map((f) => f.totalMs));
    console.log(`\nDeploy latency, two plugins (npm ${GOOD.package} from a local verdaccio + bundled file-transfer), fresh state each run, ${runs} runs each, alternating`);
    console.log(`floor (same CLI steps by a script)   median ${sec(floorMedian)} s   runs: ${floors.map((f) => sec(f.totalMs).trim()).join(' ')}`);
    for (const [v, variant] of variants.entries()) {
      const runsOf = occ[v]!;
      const m = median(runsOf.map((f) => f.totalMs));
      console.log(
        `${variant.name}\n  POST deploy → succeeded               median ${sec(m)} s   runs: ${runsOf.map((f) => sec(f.totalMs).trim()).join(' ')}   ratio OCC/floor ${(m / floorMedian).toFixed(2)}`,
      );
      console.log(
        `  → runtime serving ${sec(median(runsOf.map((f) => f.toRuntimeMs)))} s   → runtime status ready ${sec(median(runsOf.map((f) => f.toPreparedMs)))} s   → succeeded ${sec(m)} s (medians)`,
      );
      const names = [...new Set(runsOf.flatMap((f) => Object.keys(f.steps)))];
      console.log(`  runtime steps (median s): ${names.map((n) => `${n} ${(median(runsOf.map((f) => f.steps[n] ?? 0)) / 1000).toFixed(2)}`).join(', ')}`);
    }
    const floorSteps = [...new Set(floors.flatMap((f) => Object.keys(f.steps)))];
    console.log(`floor steps (median s): ${floorSteps.map((n) => `${n} ${(median(floors.map((f) => f.steps[n] ?? 0)) / 1000).toFixed(2)}`).join(', ')}`);
  } finally {
    process.env = saved;
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
