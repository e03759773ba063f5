import autocannon from 'autocannon';
import Fastify from 'fastify';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { composeController } from '../apps/controller/src/composition/compose.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import type { Database } from '../apps/controller/src/state/database.ts';
import { openBenchDatabase } from './bench-database.ts';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time of this process (server, client and scraper alike) per request, in microseconds: less moved by other processes' load than req/s. */
  cpuUs: number;
}

/** The round with the median throughput (its latencies with it). */
function median(runs: Figures[]): Figures {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
}

const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Metrics on against off, round by round: each round's two runs are adjacent, so the median of
 * their ratios cancels the drift of a long run (a growing audit table, a neighbour's load) that
 * moves each side's own median.
 */
function pairedRatios(on: Figures[], off: Figures[]): { rps: number; cpu: number } {
  return { rps: middle(on.map((r, i) => r.rps / off[i]!.rps)), cpu: middle(on.map((r, i) => r.cpuUs / off[i]!.cpuUs)) };
}

async function load(url: string, method: 'GET' | 'PATCH', headers: Record<string, string>, body: string | undefined, seconds: number): Promise<Figures> {
  const cpu = process.cpuUsage();
  const result = await autocannon({ url, method, headers, ...(body ? { body } : {}), connections: 10, duration: seconds });
  const used = process.cpuUsage(cpu);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${method} ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs: (used.user + used.system) / result.requests.total };
}

/** The baseline: a bare Fastify route doing the one equivalent statement, nothing else. */
async function startBaseline(db: Database) {
  const app = Fastify();
  app.get('/agents/:id', async (req) => (await db.query('SELECT * FROM agents WHERE id = $1', [(req.params as { id: string }).id])).rows[0]);
  app.patch('/agents/:id', async (req) => {
    const { id } = req.params as { id: string };
    const { name } = req.body as { name: string };
    return (await db.query('UPDATE agents SET name = $2, version = version + 1, updated_at = now() WHERE id = $1 RETURNING *', [id, name])).rows[0];
  });
  return { url: await app.listen({ port: 0, host: '127.0.0.1' }), close: () => app.close() };
}

/** The scraper process: scrapes its URL every second between an `on` and an `off` line, then reports `<scrapes> <failures>`. */
const SCRAPER = `
const url = process.argv[1];
let timer = null, scrapes = 0, failures = 0;
const scrape = () => fetch(url).then(async (r) => { await r.text(); scrapes++; if (r.status !== 200) failures++; }, () => failures++);
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'on') { scrapes = 0; failures = 0; timer = setInterval(scrape, 1000); }
  else { clearInterval(timer); process.stdout.write(scrapes + ' ' + failures + '\\n'); }
});`;

/**
 * Scrapes a metrics URL every second while asked, as a Prometheus would, from a process of its
 * own started once (its work, and its start, are not counted as OCC's CPU).
 */
function startScraper(url: string): { during<T>(run: () => Promise<T>): Promise<T>; stop(): void } {
  const scraper = spawn(process.execPath, ['-e', SCRAPER, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  const reports = createInterface({ input: scraper.stdout! })[Symbol.asyncIterator]();
  return {
    async during(run) {
      scraper.stdin!.write('on\n');
      const result = await run();
      scraper.stdin!.write('off\n');
      const [scrapes, failures] = String((await reports.next()).value)
        .split(' ')
        .map(Number);
      if (failures !== 0) throw new Error(`scrapes of ${url}: ${scrapes} answered, ${failures} failed`);
      return result;
    },
    stop: () => scraper.kill(),
  };
}

export async function benchApi(seconds = Number(process.env.BENCH_SECONDS ?? 5)): Promise<void> {
  const { database, dispose } = await openBenchDatabase();
  const secretKey = randomBytes(32);
  const controller = await composeController({ database, secretKey });
  // The same controller with the metrics listener on (OCC_METRICS_ADDRESS), on the same database, in the same process.
  const metered = await composeController({ database, secretKey, metricsAddress: '127.0.0.1:0' });
  const scraper = startScraper(metered.metrics!.url);
  const onExit: (() => Promise<void>)[] = [() => metered.close(), async () => scraper.stop()];
  try {
    const boot = await bootstrapInstallation(controller.deps);
    if (!boot.created) throw new Error('bench database already bootstrapped');
    const base = await controller.app.listen({ port: 0, host: '127.0.0.1' });
    const meteredBase = await metered.app.listen({ port: 0, host: '127.0.0.1' });
    const auth = { authorization: `Bearer ${boot.adminKey}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path} → ${res.status}`);
      return ((await res.json()) as { data: { id: string } }).data;
    };
    const ns = boot.defaultNamespaceId;
    const cfg = await post(`/namespaces/${ns}/configurations`, { name: 'bench', values: { agents: { defaults: {} } } });
    const agent = await post(`/namespaces/${ns}/agents`, {
      name: 'bench-agent',
      configurationId: cfg.id,
      harness: 'openclaw',
      plugins: { '@openclaw/nostr': { enabled: true, toolDefaults: { approval: 'none' } } },
    });
    const baseline = await startBaseline(database);
    onExit.push(baseline.close);
    const patchBody = JSON.stringify({ name: 'bench-agent-renamed' });

    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const targets = {
      occ: { url: `${base}/namespaces/${ns}/agents/${agent.id}`, headers: auth },
      metered: { url: `${meteredBase}/namespaces/${ns}/agents/${agent.id}`, headers: auth },
      bare: { url: `${baseline.url}/agents/${agent.id}`, headers: { 'content-type': 'application/json' } },
    };
    const rows: [string, Figures, Figures][] = [];
    const meteredRows: [string, Figures, Figures, { rps: number; cpu: number }][] = [];
    for (const method of ['GET', 'PATCH'] as const) {
      const body = method === 'PATCH' ? patchBody : undefined;
      const run = (side: keyof typeof targets, duration: number) => {
        const measure = () => load(targets[side].url, method, targets[side].headers, body, duration);
        // The metered side is scraped every second while it is loaded, so its gauges' reads count too.
        return side === 'metered' ? scraper.during(measure) : measure();
      };
      // Every side warms up first (JIT, prepared statements, pools), then they take turns so drift falls on all.
      await run('occ', 1);
      await run('metered', 1);
      await run('bare', 1);
      const occ: Figures[] = [];
      const meteredRuns: Figures[] = [];
      const bare: Figures[] = [];
      for (let round = 0; round < rounds; round++) {
        // Metrics on and off swap places every round, so neither always runs right after the other.
        if (round % 2 === 0) {
          occ.push(await run('occ', seconds));
          meteredRuns.push(await run('metered', seconds));
        } else {
          meteredRuns.push(await run('metered', seconds));
          occ.push(await run('occ', seconds));
        }
        bare.push(await run('bare', seconds));
      }
      rows.push([method, median(occ), median(bare)]);
      meteredRows.push([method, median(meteredRuns), median(occ), pairedRatios(meteredRuns, occ)]);
    }
    console.log(
      `\nAgent API through the full stack vs a bare Fastify route on the same database (${database.kind}; after a 1 s warm-up each, ${rounds} alternating rounds of ${seconds} s, the median; 10 connections)`,
    );
    const f = (n: number, w: number) => n.toFixed(0).padStart(w);
    console.log('op     occ req/s  p50 ms  p99 ms | bare req/s  p50 ms  p99 ms | ratio (occ/bare req/s)');
    for (const [op, occ, bare] of rows) {
      console.log(
        `${op.padEnd(6)} ${f(occ.rps, 9)} ${f(occ.p50, 7)} ${f(occ.p99, 7)} | ${f(bare.rps, 10)} ${f(bare.p50, 7)} ${f(bare.p99, 7)} | ${(occ.rps / bare.rps).toFixed(2)}`,
      );
    }
    console.log(
      "\nThe same with the metrics listener on (OCC_METRICS_ADDRESS, scraped every second) vs off, in the same rounds; the ratios are the medians of each round's pair (issue 27: < 5 % apart)",
    );
    console.log('op      on req/s  p50 ms  p99 ms  CPU µs/req |  off req/s  p50 ms  p99 ms  CPU µs/req | ratio on/off: req/s  CPU/req');
    for (const [op, on, off, ratio] of meteredRows) {
      console.log(
        `${op.padEnd(6)} ${f(on.rps, 9)} ${f(on.p50, 7)} ${f(on.p99, 7)} ${f(on.cpuUs, 11)} | ${f(off.rps, 10)} ${f(off.p50, 7)} ${f(off.p99, 7)} ${f(off.cpuUs, 11)} | ${ratio.rps.toFixed(3).padStart(19)}  ${ratio.cpu.toFixed(3).padStart(7)}`,
      );
    }
  } finally {
    for (const close of onExit) await close();
    await controller.close();
    await dispose();
  }
}
