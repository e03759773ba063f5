import { randomBytes } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { Database } from '../apps/controller/src/state/database.ts';
import { migrate } from '../apps/controller/src/state/migrate.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createWorkQueue, workQueueWriter } from '../apps/controller/src/state/work-queue/index.ts';
import { DEFAULT_WORKER_SETTINGS } from '../apps/controller/src/worker/worker-deps.ts';
import { enqueueToClaim } from './queue-wake.ts';

const DEFAULT_URL = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const LEASE_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  label: string;
  jobsPerSecond: number;
  seconds: number;
}

const rate = (label: string, jobs: number, ms: number): Run => ({ label, jobsPerSecond: (jobs * 1000) / ms, seconds: ms / 1000 });

/** OCC's queue: J items over ~J/10 lanes, then N loops of claim → complete (no-op compute) until all are done. */
async function ours(url: string, schema: string, workers: number, jobs: number): Promise<Run> {
  const db: Database = createPgDatabase({ connectionString: url, schema, max: workers });
  try {
    await migrate(db);
    const lanes = Math.max(1, Math.round(jobs / 10));
    for (let from = 0; from < jobs; from += 500) {
      await db.transaction(async (tx) => {
        const writer = workQueueWriter(tx);
        for (let i = from; i < Math.min(jobs, from + 500); i++) {
          await writer.enqueue({
            key: `bench:${i}`,
            kind: 'reconcile_revision',
            lane: `agt_${i % lanes}`,
            namespaceId: 'ns_bench',
            agentId: `agt_${i % lanes}`,
            actorId: 'prn_bench',
            maxAttempts: 3,
            deadlineAt: new Date(Date.now() + 3_600_000),
          });
        }
      });
    }
    await db.query('ANALYZE work_items');
    const queue = createWorkQueue(db);
    let done = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        while (done < jobs) {
          const claim = await queue.claim(`bench-${w}`, LEASE_MS);
          // Null while items remain: every remaining lane is busy right now.
          if (!claim) {
            await sleep(1);
            continue;
          }
          await queue.complete(claim, 'REVISION_ACTIVATED', null);
          done++;
        }
      }),
    );
    const elapsed = performance.now() - start;
    const left = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM work_items WHERE state <> 'succeeded'`);
    if (left.rows[0]!.n !== 0) throw new Error(`${left.rows[0]!.n} items not succeeded`);
    return rate('occ claim → complete', jobs, elapsed);
  } finally {
    await db.close();
  }
}

type Mode = { kind: 'loop' } | { kind: 'work'; batchSize: number };

/** pg-boss in its own schema: `fetch` → `complete` loops (one job each, like ours), or `work()` with a batch size. */
async function pgBoss(url: string, schema: string, workers: number, jobs: number, mode: Mode): Promise<Run> {
  const boss = new PgBoss({ connectionString: url, schema, max: workers, supervise: false, schedule: false });
  boss.on('error', (error) => console.error('pg-boss:', error.message));
  await boss.start();
  try {
    const name = 'bench';
    await boss.createQueue(name);
    for (let from = 0; from < jobs; from += 1000) {
      await boss.insert(Array.from({ length: Math.min(1000, jobs - from) }, (_, i) => ({ name, data: { i: from + i } })));
    }
    await boss.getDb().executeSql(`ANALYZE ${schema}.job`, []);
    const completed = async () =>
      (await boss.getDb().executeSql(`SELECT count(*)::int AS n FROM ${schema}.job WHERE name = $1 AND state = 'completed'`, [name])).rows[0].n as number;
    let handled = 0;
    const start = performance.now();
    if (mode.kind === 'loop') {
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (handled < jobs) {
            const [job] = await boss.fetch(name, { batchSize: 1 });
            if (!job) {
              await sleep(1);
              continue;
            }
            await boss.complete(name, job.id);
            handled++;
          }
        }),
      );
    } else {
      for (let w = 0; w < workers; w++) {
        await boss.work(name, { batchSize: mode.batchSize, pollingIntervalSeconds: 0.5 }, async (batch) => void (handled += batch.length));
      }
      // work() completes after the handler without awaiting it: the run ends when the last completion is stored.
      while (handled < jobs) await sleep(2);
      while ((await completed()) < jobs) await sleep(2);
    }
    const elapsed = performance.now() - start;
    if ((await completed()) !== jobs) throw new Error('pg-boss did not complete every job');
    const label = mode.kind === 'loop' ? 'pg-boss fetch → complete' : `pg-boss work() batchSize ${mode.batchSize}`;
    return rate(label, jobs, elapsed);
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

export async function benchQueue(): Promise<void> {
  const url = process.env.OCC_BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_URL;
  const workers = Number(process.env.BENCH_WORKERS ?? 4);
  const jobs = Number(process.env.BENCH_JOBS ?? 5000);
  const batchSize = Number(process.env.BENCH_BOSS_BATCH ?? 50);
  const tag = randomBytes(4).toString('hex');
  const wakeJobs = Number(process.env.BENCH_WAKE_JOBS ?? 200);
  const pollMs = Number(process.env.BENCH_POLL_MS ?? DEFAULT_WORKER_SETTINGS.pollMs);
  const schemas = [`bench_q_${tag}`, `bench_boss1_${tag}`, `bench_bossw_${tag}`, `bench_wake_${tag}`, `bench_poll_${tag}`];
  const admin = createPgDatabase({ connectionString: url, max: 1 });
  try {
    for (const s of [schemas[0]!, schemas[3]!, schemas[4]!]) await admin.query(`CREATE SCHEMA ${s}`);
    const occ = await ours(url, schemas[0]!, workers, jobs);
    const loop = await pgBoss(url, schemas[1]!, workers, jobs, { kind: 'loop' });
    const work = await pgBoss(url, schemas[2]!, workers, jobs, { kind: 'work', batchSize });
    console.log(`\nWork queue throughput, no-op compute: ${jobs} jobs, ${workers} workers, PostgreSQL (${new URL(url).host})`);
    console.log('queue                            jobs/s   seconds | occ/this');
    for (const r of [occ, loop, work]) {
      console.log(`${r.label.padEnd(30)} ${r.jobsPerSecond.toFixed(0).padStart(8)} ${r.seconds.toFixed(2).padStart(9)} | ${(occ.jobsPerSecond / r.jobsPerSecond).toFixed(2)}`);
    }
    console.log('occ: one item per claim, one claimed item per lane, leased and fenced; pg-boss: no lanes, no fencing token.');

    const woken = await enqueueToClaim(url, schemas[3]!, { jobs: wakeJobs, pollMs, listen: true });
    const polled = await enqueueToClaim(url, schemas[4]!, { jobs: wakeJobs, pollMs, listen: false });
    console.log(`\nEnqueue → claim latency of one idle worker: ${wakeJobs} items enqueued one at a time (database clock)`);
    console.log('worker wakes on                     p50 ms   p99 ms   max ms | p50 polled/this');
    for (const r of [woken, polled]) {
      console.log(`${r.label.padEnd(34)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(8)} ${r.max.toFixed(1).padStart(8)} | ${(polled.p50 / r.p50).toFixed(1)}`);
    }
  } finally {
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await admin.close();
  }
}
