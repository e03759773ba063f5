import autocannon from 'autocannon';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { composeController } from '../apps/controller/src/composition/compose.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import type { Database } from '../apps/controller/src/state/database.ts';
import { openBenchDatabase } from './bench-database.ts';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

/** The round with the median throughput (its latencies with it). */
function median(runs: Figures[]): Figures {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
}

async function load(url: string, method: 'GET' | 'PATCH', headers: Record<string, string>, body: string | undefined, seconds: number): Promise<Figures> {
  const result = await autocannon({ url, method, headers, ...(body ? { body } : {}), connections: 10, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${method} ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
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

export async function benchApi(seconds = Number(process.env.BENCH_SECONDS ?? 5)): Promise<void> {
  const { database, dispose } = await openBenchDatabase();
  const controller = await composeController({ database, secretKey: randomBytes(32) });
  const onExit: (() => Promise<void>)[] = [];
  try {
    const boot = await bootstrapInstallation(controller.deps);
    if (!boot.created) throw new Error('bench database already bootstrapped');
    const base = await controller.app.listen({ port: 0, host: '127.0.0.1' });
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
      bare: { url: `${baseline.url}/agents/${agent.id}`, headers: { 'content-type': 'application/json' } },
    };
    const rows: [string, Figures, Figures][] = [];
    for (const method of ['GET', 'PATCH'] as const) {
      const body = method === 'PATCH' ? patchBody : undefined;
      const run = (side: keyof typeof targets, duration: number) => load(targets[side].url, method, targets[side].headers, body, duration);
      // Both sides warm up first (JIT, prepared statements, pools), then take turns so drift falls on both.
      await run('occ', 1);
      await run('bare', 1);
      const occ: Figures[] = [];
      const bare: Figures[] = [];
      for (let round = 0; round < rounds; round++) {
        occ.push(await run('occ', seconds));
        bare.push(await run('bare', seconds));
      }
      rows.push([method, median(occ), median(bare)]);
    }
    console.log(
      `\nAgent API through the full stack vs a bare Fastify route on the same database (${database.kind}; after a 1 s warm-up each, ${rounds} alternating rounds of ${seconds} s, the median; 10 connections)`,
    );
    console.log('op     occ req/s  p50 ms  p99 ms | bare req/s  p50 ms  p99 ms | ratio (occ/bare req/s)');
    for (const [op, occ, bare] of rows) {
      const f = (n: number, w: number) => n.toFixed(0).padStart(w);
      console.log(
        `${op.padEnd(6)} ${f(occ.rps, 9)} ${f(occ.p50, 7)} ${f(occ.p99, 7)} | ${f(bare.rps, 10)} ${f(bare.p50, 7)} ${f(bare.p99, 7)} | ${(occ.rps / bare.rps).toFixed(2)}`,
      );
    }
  } finally {
    for (const close of onExit) await close();
    await controller.close();
    await dispose();
  }
}
