import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { WorkQueue } from '../../src/core/ports/work-queue.ts';
import type { Database, Queryable } from '../../src/state/database.ts';
import { createPgDatabase } from '../../src/state/pg-database.ts';
import { createWorkQueue, workQueueWriter } from '../../src/state/work-queue/index.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';

// Several connections race for the same rows: PGlite is one connection, so PostgreSQL only.
describe.runIf(process.env.OCC_TEST_DB === 'postgres')('claims under concurrency (separate pools)', () => {
  const WORKERS = 8;
  const LANES = ['agt_a', 'agt_b', 'agt_c'];
  let db: Database;
  let cleanup: () => Promise<void>;
  const pools: Database[] = [];
  const queues: WorkQueue<Queryable>[] = [];

  beforeAll(async () => {
    const created = await createTestDatabase();
    ({ db, cleanup } = created);
    for (let i = 0; i < WORKERS; i++) {
      const pool = createPgDatabase({ connectionString: created.connectionString!, max: 2 });
      pools.push(pool);
      queues.push(createWorkQueue(pool));
    }
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await cleanup();
  });
  beforeEach(async () => void (await db.query('DELETE FROM work_items')));

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  async function fill(perLane: number, lanes = LANES) {
    await db.transaction(async (tx) => {
      for (let i = 0; i < perLane; i++) {
        for (const lane of lanes) {
          await workQueueWriter(tx).enqueue({
            key: `${lane}:${i}`,
            kind: 'stop_agent',
            lane,
            namespaceId: newId('namespace'),
            agentId: lane,
            actorId: newId('principal'),
            maxAttempts: 3,
            deadlineAt: new Date(Date.now() + 60_000),
          });
        }
      }
    });
  }

  it('8 simultaneous claimers on 3 lanes get exactly one claim per lane, every round', async () => {
    await fill(6);
    for (let round = 0; round < 6; round++) {
      const claims = (await Promise.all(queues.map((q, i) => q.claim(`w${i}`, 5_000)))).filter((c) => c !== null);
      expect(claims.map((c) => c.item.lane).sort()).toEqual(LANES);
      expect(claims.map((c) => c.item.key).sort()).toEqual(LANES.map((lane) => `${lane}:${round}`));
      await Promise.all(claims.map((c) => queues[0]!.complete(c, 'REVISION_ACTIVATED', null)));
    }
    expect(await queues[0]!.claim('w', 5_000)).toBeNull();
  });

  it('8 looping workers process every item once, never two of one lane at a time, in lane order', async () => {
    const PER_LANE = 15;
    await fill(PER_LANE);
    const inFlight = new Map<string, string>();
    const done: string[] = [];
    let overlaps = 0;
    let peak = 0;
    await Promise.all(
      queues.map(async (queue, w) => {
        for (let idle = 0; idle < 5; ) {
          const claim = await queue.claim(`w${w}`, 5_000);
          if (!claim) {
            idle++;
            await sleep(5);
            continue;
          }
          idle = 0;
          if (inFlight.has(claim.item.lane)) overlaps++;
          inFlight.set(claim.item.lane, claim.item.key);
          peak = Math.max(peak, inFlight.size);
          await sleep(Math.random() * 4);
          done.push(claim.item.key);
          // Leave the lane before the completion commits: the next claim of the lane can only follow it.
          inFlight.delete(claim.item.lane);
          await queue.complete(claim, 'REVISION_ACTIVATED', null);
        }
      }),
    );
    expect(overlaps).toBe(0);
    expect(peak).toBeGreaterThan(1);
    expect([...done].sort()).toEqual(LANES.flatMap((lane) => Array.from({ length: PER_LANE }, (_, i) => `${lane}:${i}`)).sort());
    for (const lane of LANES) {
      expect(done.filter((k) => k.startsWith(`${lane}:`))).toEqual(Array.from({ length: PER_LANE }, (_, i) => `${lane}:${i}`));
    }
    const states = await db.query<{ state: string; attempts: number; n: number }>('SELECT state, attempts, count(*)::int AS n FROM work_items GROUP BY 1, 2');
    expect(states.rows).toEqual([{ state: 'succeeded', attempts: 1, n: PER_LANE * LANES.length }]);
  });

  it('racing recoverers of one expired claim: exactly one wins', async () => {
    await fill(1);
    const held = (await Promise.all(queues.slice(0, 3).map((q) => q.claim('first', 400)))).filter((c) => c !== null);
    expect(held).toHaveLength(3);
    await sleep(500);
    const recovered = (await Promise.all(queues.map((q, i) => q.claim(`w${i}`, 5_000)))).filter((c) => c !== null);
    expect(recovered.map((c) => c.item.key).sort()).toEqual(held.map((c) => c.item.key).sort());
    expect(recovered.every((c) => c.item.reasonCode === 'LEASE_EXPIRED' && c.item.attempts === 2)).toBe(true);
  });

  it('while withLiveClaim holds the item, nobody recovers it even past the lease; afterwards the token is stale', async () => {
    await fill(1, ['agt_a']);
    const claim = (await queues[0]!.claim('w0', 400))!;
    await queues[0]!.withLiveClaim(claim, async () => {
      await sleep(500);
      expect(await queues[1]!.claim('w1', 5_000)).toBeNull();
    });
    const thief = await queues[2]!.claim('w2', 5_000);
    expect(thief?.item.key).toBe(claim.item.key);
    await expect(queues[0]!.complete(claim, 'REVISION_ACTIVATED', null)).rejects.toMatchObject({ code: 'CLAIM_LOST' });
  });
});
