import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { EnqueueRequest } from '../../src/core/ports/work-queue.ts';
import type { Database } from '../../src/state/database.ts';
import { workChannel, workQueueWriter } from '../../src/state/work-queue/index.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';
import { sleep, waitFor } from '../../../../test-support/deploy-helpers.ts';

const dbs: { db: Database; cleanup: () => Promise<void> }[] = [];
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  dbs.push(await createTestDatabase(), await createTestDatabase());
});
afterAll(async () => {
  for (const stop of stops) await stop();
  for (const { cleanup } of dbs) await cleanup();
});

const request = (): EnqueueRequest => {
  const revisionId = newId('agent_revision');
  const lane = newId('agent');
  return {
    key: `agent_revision:${revisionId}:reconcile`,
    kind: 'reconcile_revision',
    lane,
    namespaceId: newId('namespace'),
    agentId: lane,
    revisionId,
    actorId: newId('principal'),
    maxAttempts: 3,
    deadlineAt: new Date(Date.now() + 60_000),
  };
};

/** Counts the notifications on `db`'s work channel, from after the listener's own first call. */
async function countWakes(db: Database): Promise<{ count(): number }> {
  let n = 0;
  stops.push(await db.listen!(await workChannel(db), () => n++));
  const base = n;
  return { count: () => n - base };
}

describe('enqueue wakes listening workers (LISTEN/NOTIFY)', () => {
  it('notifies once the enqueuing transaction commits, not before, not on rollback, not for a replayed key', async () => {
    const { db } = dbs[0]!;
    const wakes = await countWakes(db);
    const req = request();
    let seenInside = -1;
    await db.transaction(async (tx) => {
      await workQueueWriter(tx).enqueue(req);
      await sleep(150);
      seenInside = wakes.count();
    });
    expect(seenInside).toBe(0);
    await waitFor(
      'the wake of a committed enqueue',
      async () => wakes.count(),
      (n) => n === 1,
      5_000,
      5,
    );

    await expect(
      db.transaction(async (tx) => {
        await workQueueWriter(tx).enqueue(request());
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await db.transaction((tx) => workQueueWriter(tx).enqueue(req)); // same key: nothing new to claim
    await sleep(200);
    expect(wakes.count()).toBe(1);
  });

  it('does not wake the workers of another database or schema', async () => {
    const [a, b] = [dbs[0]!.db, dbs[1]!.db];
    const wakesA = await countWakes(a);
    const wakesB = await countWakes(b);
    await b.transaction((tx) => workQueueWriter(tx).enqueue(request()));
    await waitFor(
      'the wake in the enqueuing database',
      async () => wakesB.count(),
      (n) => n === 1,
      5_000,
      5,
    );
    await sleep(200);
    expect(wakesA.count()).toBe(0);
  });
});
