import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginMap } from '@occ/contracts';
import { probeGatewayReady } from '../apps/runtime/src/gateway-probe.ts';
import { FIXTURE_PLUGINS, startFixtureRegistry } from '../test-support/npm-registry.ts';
import { localGateway, runtimeLogEvents, type RuntimeLogEvent } from '../test-support/local-gateway.ts';
import type { GatewayAddress } from '../test-support/scripted-agent-turn.ts';
import { startBenchController, waitForDeployment, type BenchController } from './bench-controller.ts';
import { median, seconds as sec } from './figures.ts';

// Revision 1: the npm fixture `good` and the bundled `file-transfer`; revision 2 changes one
// plugin: `good` gives way to the bundled `llm-task` (so the candidate also removes a stale install).
const GOOD = FIXTURE_PLUGINS.good;
const ON = { enabled: true, toolDefaults: { enabled: true, approval: 'none' } };
const FIRST = { 'file-transfer': ON, [`openclaw:${GOOD.package}`]: ON } as PluginMap;
const SECOND = { 'file-transfer': ON, 'llm-task': ON } as PluginMap;
/** How often the Agent's gateways are asked `/readyz` during the redeploy. */
const PROBE_EVERY_MS = 50;

/** Where a bench's Agent runs: how its revisions' gateways are reached and their runtimes' log events read. */
export interface RedeployTarget {
  /** The revision's gateway once it has one, else null. */
  gateway(agentId: string, revisionId: string): Promise<GatewayAddress | null>;
  events(agentId: string, revisionId: string): Promise<RuntimeLogEvent[]>;
}

const LOCAL = (bench: BenchController): RedeployTarget => ({
  gateway: async (agentId, revisionId) => tryGateway(bench, agentId, revisionId),
  events: async (agentId, revisionId) => runtimeLogEvents(bench.dataDir, agentId, revisionId),
});

export interface RedeployFigures {
  /** POST deploy of revision 2 → `succeeded`. */
  redeployMs: number;
  /** The longest stretch in which no gateway of the Agent answered `/readyz`. */
  downtimeMs: number;
  /** Revision 2's gateway: its start (`gateway.started`) → the runtime's `ready` (it answered). */
  coldStartMs: number;
}

/** One Agent deployed, then redeployed with one plugin changed while its gateways are probed. */
export async function runRedeploy(bench: BenchController, target: RedeployTarget = LOCAL(bench)): Promise<RedeployFigures> {
  const ns = bench.namespaceId;
  const cfg = await bench.call('POST', `/namespaces/${ns}/configurations`, { name: 'bench', values: { tools: { profile: 'coding' } } }, 201);
  const agent = await bench.call('POST', `/namespaces/${ns}/agents`, { name: 'bench-agent', configurationId: cfg.id, harness: 'openclaw', plugins: FIRST }, 201);
  const agentUrl = `/namespaces/${ns}/agents/${agent.id}`;
  const one = await bench.call('POST', `${agentUrl}/deploy`, undefined, 202);
  if ((await waitForDeployment(bench, agentUrl, one.id, 200)).state !== 'succeeded') throw new Error('revision 1 did not deploy');
  const oldGateway = await target.gateway(agent.id, one.id);
  if (!oldGateway) throw new Error('revision 1 has no gateway');
  await bench.call('PATCH', agentUrl, { plugins: SECOND });

  const started = performance.now();
  const two = await bench.call('POST', `${agentUrl}/deploy`, undefined, 202);
  let newGateway: GatewayAddress | null = null;
  let done = false;
  let lastUp = started;
  let downtimeMs = 0;
  const answers = (gateway: GatewayAddress) => probeGatewayReady(gateway.port, gateway.token, AbortSignal.timeout(1_000)).catch(() => false);
  const probing = (async () => {
    while (!done) {
      newGateway ??= await target.gateway(agent.id, two.id);
      const up = (await answers(oldGateway)) || (newGateway !== null && (await answers(newGateway)));
      const now = performance.now();
      if (up) {
        downtimeMs = Math.max(downtimeMs, now - lastUp);
        lastUp = now;
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  const status = await waitForDeployment(bench, agentUrl, two.id, 100);
  const redeployMs = performance.now() - started;
  // The new gateway answers by `succeeded`; one more look closes the last stretch.
  await new Promise((resolve) => setTimeout(resolve, 2 * PROBE_EVERY_MS));
  done = true;
  await probing;
  if (status.state !== 'succeeded') throw new Error(`redeploy ended ${JSON.stringify(status)}`);
  const events = await target.events(agent.id, two.id);
  const at = (name: string) => Date.parse(String(events.find((e) => e.event === name)?.time));
  return { redeployMs, downtimeMs, coldStartMs: at('startup.ready') - at('gateway.started') };
}

function tryGateway(bench: BenchController, agentId: string, revisionId: string): GatewayAddress | null {
  try {
    return localGateway(bench.dataDir, agentId, revisionId);
  } catch {
    return null;
  }
}

type RedeployMode = 'recreate' | 'prepare-beside';

/**
 * `runs` rounds of one redeploy in each mode, alternating; prints each run, then the medians per
 * mode under `heading` (the modes named as the target's `variable`).
 */
export async function alternateModes(runs: number, runOne: (mode: RedeployMode) => Promise<RedeployFigures>, label: { heading: string; variable: string }): Promise<void> {
  const modes: RedeployMode[] = ['recreate', 'prepare-beside'];
  const figures: Record<RedeployMode, RedeployFigures[]> = { recreate: [], 'prepare-beside': [] };
  for (let i = 0; i < runs; i += 1) {
    for (const mode of modes) {
      const run = await runOne(mode);
      figures[mode].push(run);
      console.log(
        `run ${i + 1} ${mode.padEnd(14)}: redeploy ${sec(run.redeployMs)} s, no gateway answering ${sec(run.downtimeMs)} s, the new gateway's cold start ${sec(run.coldStartMs)} s, ratio ${(run.downtimeMs / run.coldStartMs).toFixed(2)}`,
      );
    }
  }
  console.log(`\n${label.heading}, ${runs} runs each, alternating, medians`);
  for (const mode of modes) {
    const downtime = median(figures[mode].map((f) => f.downtimeMs));
    const coldStart = median(figures[mode].map((f) => f.coldStartMs));
    console.log(
      `  ${label.variable}=${mode.padEnd(14)} redeploy ${sec(median(figures[mode].map((f) => f.redeployMs)))} s, no gateway answering ${sec(downtime)} s, cold start ${sec(coldStart)} s, ratio downtime/cold start ${(downtime / coldStart).toFixed(2)}`,
    );
  }
}

/**
 * Redeploy downtime on `local`, with each OCC_LOCAL_REDEPLOY mode alternating: an Agent's revision
 * serves, a revision changing one plugin is deployed, and the Agent's gateways are asked `/readyz`
 * every 50 ms throughout. The longest unanswered stretch is set against the new gateway's own cold
 * start in the same run (goal of issue 26: ≤ 1.2×). BENCH_DEPLOYS (3) runs of each, each with a
 * fresh controller, database and state.
 */
export async function benchRedeployDowntime(runs = Number(process.env.BENCH_DEPLOYS ?? 3)): Promise<void> {
  const registry = await startFixtureRegistry();
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-redeploy-'));
  const saved = { ...process.env };
  try {
    const catalogPath = join(dir, 'catalog.json');
    writeFileSync(catalogPath, JSON.stringify(registry.catalog));
    process.env.OCC_OPENCLAW_CATALOG = catalogPath;
    await alternateModes(
      runs,
      async (mode) => {
        const env = { ...process.env, OCC_OPENCLAW_CATALOG: catalogPath, OCC_NPM_REGISTRY: registry.url, OCC_LOCAL_REDEPLOY: mode };
        const bench = await startBenchController(env, { pollMs: 50, convergencePollMs: 100 });
        try {
          return await runRedeploy(bench);
        } finally {
          await bench.close();
        }
      },
      { heading: `Redeploy downtime on local (one plugin changed: ${GOOD.package} → llm-task)`, variable: 'OCC_LOCAL_REDEPLOY' },
    );
  } finally {
    process.env = saved;
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
