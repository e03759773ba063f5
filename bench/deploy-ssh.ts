import { join } from 'node:path';
import { scriptedModelConfiguration } from '../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer } from '../test-support/scripted-model-server.ts';
import { sshDriverEnv, startRealSshd } from '../test-support/ssh/real-sshd.ts';
import { startBenchController, waitForDeployment } from './bench-controller.ts';
import { median, seconds as sec } from './figures.ts';

/** The checkout the SSH host's runtime runs from (OCC_SSH_WORKSPACE), as the e2e test has it. */
const WORKSPACE = join(import.meta.dirname, '..');
/** How often the bench looks at the deployment: fine enough not to blur a deploy of seconds. */
const LOOK_EVERY_MS = 100;

interface DeployFigures {
  /** POST deploy → `succeeded`. */
  totalMs: number;
  /** POST deploy → the runtime serving its status (the driver's staging and launch, the runtime's start). */
  toServingMs: number;
  /** POST deploy → the runtime's gateway started (`gateway.started`: its prepare done). */
  toGatewayMs: number;
  /** POST deploy → the runtime's `ready` (its gateway answers). */
  toReadyMs: number;
}

/**
 * One deploy, POST deploy → `succeeded`, through a fresh in-process controller (database, data
 * directory) on `driver`: an openclaw Agent with no plugins ([P-3]: the ssh driver takes none) and
 * the scripted model's Configuration. The runtime's own log, read through the API, places its start.
 */
async function deployOnce(driver: string, env: NodeJS.ProcessEnv, values: Record<string, unknown>): Promise<DeployFigures> {
  const bench = await startBenchController(env, { pollMs: 50, convergencePollMs: 100 }, driver);
  try {
    const ns = bench.namespaceId;
    const cfg = await bench.call('POST', `/namespaces/${ns}/configurations`, { name: 'bench', values }, 201);
    const agent = await bench.call('POST', `/namespaces/${ns}/agents`, { name: 'bench-agent', configurationId: cfg.id, harness: 'openclaw', plugins: {} }, 201);
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    const startedAt = Date.now();
    const started = performance.now();
    const revision = await bench.call('POST', `${url}/deploy`, undefined, 202);
    const status = await waitForDeployment(bench, url, revision.id, LOOK_EVERY_MS);
    const totalMs = performance.now() - started;
    if (status.state !== 'succeeded') throw new Error(`${driver} deploy ended ${JSON.stringify(status)}`);
    const logs = (await bench.call('GET', `${url}/deployments/${revision.id}/runtime/logs?tail=1000`)) as { lines: string[] };
    const events = logs.lines.flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as { event?: unknown; time?: unknown }];
      } catch {
        return [];
      }
    });
    const at = (name: string) => {
      const e = events.find((x) => x.event === name);
      return e ? Date.parse(String(e.time)) - startedAt : Number.NaN;
    };
    return { totalMs, toServingMs: at('startup.serving'), toGatewayMs: at('gateway.started'), toReadyMs: at('startup.ready') };
  } finally {
    await bench.close();
  }
}

/**
 * Deploy latency on the ssh ComputeDriver (the runtime as a process of a throwaway user on this
 * machine, reached only through a real sshd on loopback: test-support/ssh/real-sshd.ts) against the
 * local driver (a child process) as the baseline, alternating, BENCH_DEPLOYS times each. Each SSH
 * run has its own sshd and user (a fresh home), stopped after it: the ssh driver leaves runtimes
 * running when OCC stops, and the next run must not share the machine with them.
 */
export async function benchDeploySsh(runs = Number(process.env.BENCH_DEPLOYS ?? 3)): Promise<void> {
  const model = await startScriptedModelServer();
  try {
    const values = scriptedModelConfiguration(model);
    const local: DeployFigures[] = [];
    const ssh: DeployFigures[] = [];
    for (let i = 0; i < runs; i += 1) {
      local.push(await deployOnce('local', process.env, values));
      const sshd = await startRealSshd();
      try {
        const env = sshDriverEnv(sshd, WORKSPACE);
        ssh.push(await deployOnce('ssh', env, values));
      } finally {
        await sshd.stop();
      }
      const [l, s] = [local.at(-1)!, ssh.at(-1)!];
      console.log(
        `run ${i + 1}: local ${sec(l.totalMs)} s (runtime serving ${sec(l.toServingMs)}, gateway started ${sec(l.toGatewayMs)}, ready ${sec(l.toReadyMs)}), ` +
          `ssh ${sec(s.totalMs)} s (runtime serving ${sec(s.toServingMs)}, gateway started ${sec(s.toGatewayMs)}, ready ${sec(s.toReadyMs)})`,
      );
    }
    const m = (figures: DeployFigures[], key: keyof DeployFigures) => median(figures.map((f) => f[key]));
    console.log(`\nDeploy latency, an openclaw Agent without plugins (the scripted model's Configuration), fresh state each run, ${runs} runs each, alternating, medians`);
    for (const [name, figures] of [
      ['local (baseline)', local],
      ['ssh', ssh],
    ] as const) {
      console.log(
        `  ${name.padEnd(16)} POST deploy → succeeded ${sec(m(figures, 'totalMs'))} s   runs: ${figures.map((f) => sec(f.totalMs).trim()).join(' ')}   → runtime serving ${sec(m(figures, 'toServingMs'))} s   → gateway started ${sec(m(figures, 'toGatewayMs'))} s   → runtime ready ${sec(m(figures, 'toReadyMs'))} s`,
      );
    }
    console.log(`  ratio ssh/local ${(m(ssh, 'totalMs') / m(local, 'totalMs')).toFixed(2)}`);
  } finally {
    await model.close();
  }
}
