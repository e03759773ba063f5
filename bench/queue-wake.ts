import type { Database } from '../apps/controller/src/state/database.ts';
import { migrate } from '../apps/controller/src/state/migrate.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createWorkQueue, workChannel, workQueueWriter } from '../apps/controller/src/state/work-queue/index.ts';
import { WakeSignal } from '../apps/controller/src/worker/wake-signal.ts';

const LEASE_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Latencies {
  label: string;
  p50: number;
  p99: number;
  max: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Enqueue → claim latency of one idle worker: `jobs` items enqueued one at a time, each after
 * a pause (so the worker is asleep), claimed by the worker loop's own idle rule — consume the
 * wake, claim, else wait for a wake or the poll interval. Measured on the database clock:
 * `last_attempt_at` (the claim) − `created_at` (the enqueue).
 */
export async function enqueueToClaim(url: string, schema: string, options: { jobs: number; pollMs: number; listen: boolean }): Promise<Latencies> {
  const db: Database = createPgDatabase({ connectionString: url, schema, max: 4 });
  const wake = new WakeSignal();
  const stopping = new AbortController();
  let unlisten: (() => Promise<void>) | null = null;
  try {
    await migrate(db);
    if (options.listen) unlisten = await db.listen!(await workChannel(db), () => wake.notify());
    const queue = createWorkQueue(db);
    let claimed = 0;
    const worker = (async () => {
      while (!stopping.signal.aborted) {
        wake.consume();
        const claim = await queue.claim('bench-wake', LEASE_MS);
        if (claim) {
          await queue.complete(claim, 'REVISION_ACTIVATED', null);
          claimed++;
        } else await wake.wait(options.pollMs, stopping.signal);
      }
    })();
    for (let i = 0; i < options.jobs; i++) {
      await sleep(10 + Math.random() * 30);
      await db.transaction((tx) =>
        workQueueWriter(tx).enqueue({
          key: `bench-wake:${i}`,
          kind: 'reconcile_revision',
          lane: `agt_${i}`,
          namespaceId: 'ns_bench',
          agentId: `agt_${i}`,
          actorId: 'prn_bench',
          maxAttempts: 3,
          deadlineAt: new Date(Date.now() + 3_600_000),
        }),
      );
    }
    while (claimed < options.jobs) await sleep(10);
    stopping.abort();
    await worker;
    const { rows } = await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM last_attempt_at - created_at)::float8 * 1000 AS ms FROM work_items WHERE idempotency_key LIKE 'bench-wake:%'`,
    );
    const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
    const label = options.listen ? `LISTEN/NOTIFY + poll ${options.pollMs} ms` : `poll ${options.pollMs} ms only`;
    return { label, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
  } finally {
    stopping.abort();
    await unlisten?.();
    await db.close();
  }
}
