import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { EnqueueRequest, WorkQueue } from '../../src/core/ports/work-queue.ts';
import type { Database, Queryable } from '../../src/state/database.ts';
import { createWorkQueue, workQueueWriter } from '../../src/state/work-queue/index.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';

// Leases short enough to keep the file fast, long enough for a loaded CI machine.
const LEASE = 400;
let db: Database;
let queue: WorkQueue<Queryable>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await createTestDatabase());
  queue = createWorkQueue(db);
  await db.query('CREATE TABLE wq_effects (note text NOT NULL)');
});
afterAll(() => cleanup());
beforeEach(async () => {
  await db.query('DELETE FROM work_items');
  await db.query('DELETE FROM wq_effects');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const enqueue = (over: Partial<EnqueueRequest> = {}) =>
  db.transaction((tx) =>
    workQueueWriter(tx).enqueue({
      key: `agent:${newId('agent')}:stop`,
      kind: 'stop_agent',
      lane: 'agt_l',
      namespaceId: newId('namespace'),
      agentId: 'agt_l',
      actorId: newId('principal'),
      maxAttempts: 3,
      deadlineAt: new Date(Date.now() + 60_000),
      ...over,
    }),
  );
const effects = async () => (await db.query<{ note: string }>('SELECT note FROM wq_effects ORDER BY note')).rows.map((r) => r.note);
const note = (text: string) => (tx: Queryable) => tx.query('INSERT INTO wq_effects (note) VALUES ($1)', [text]);
const CLAIM_LOST = { code: 'CLAIM_LOST' };

describe('leases', () => {
  it('heartbeat extends a live lease from the database clock', async () => {
    await enqueue();
    const claim = (await queue.claim('w1', LEASE))!;
    await sleep(50);
    const extended = await queue.heartbeat(claim, 4 * LEASE);
    expect(extended.getTime()).toBeGreaterThan(claim.leaseExpiresAt.getTime() + LEASE);
    await sleep(LEASE + 100);
    // Past the first lease, within the extended one: still held, nobody can recover it.
    expect(await queue.claim('w2', LEASE)).toBeNull();
    await queue.complete(claim, 'REVISION_ACTIVATED', null);
  });

  it('an expired claim is recovered by another worker; the first token is then rejected everywhere', async () => {
    const item = await enqueue();
    const first = (await queue.claim('w1', LEASE))!;
    expect(await queue.claim('w2', LEASE)).toBeNull();
    await sleep(LEASE + 100);
    const second = (await queue.claim('w2', 5_000))!;
    expect(second.item).toMatchObject({ key: item.key, attempts: 2, reasonCode: 'LEASE_EXPIRED', state: 'claimed' });
    expect(second.token).not.toBe(first.token);

    let ran = false;
    await expect(queue.heartbeat(first, LEASE)).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.withLiveClaim(first, async () => void (ran = true))).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.complete(first, 'REVISION_ACTIVATED', null)).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.defer(first, 'RUNTIME_STARTING', 0)).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.retry(first, 'WORKER_ERROR', 'y')).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.fail(first, 'INVALID_TARGET', 'y')).rejects.toMatchObject(CLAIM_LOST);
    expect(ran).toBe(false);

    expect(await queue.get(item.key)).toMatchObject({ state: 'claimed', attempts: 2 });
    await queue.withLiveClaim(second, note('by w2'));
    await queue.complete(second, 'REVISION_ACTIVATED', { by: 'w2' });
    expect(await queue.get(item.key)).toMatchObject({ state: 'succeeded', result: { by: 'w2' } });
    expect(await effects()).toEqual(['by w2']);
  });

  it('an expired lease is rejected even before anyone recovers the item', async () => {
    await enqueue();
    const claim = (await queue.claim('w1', LEASE))!;
    await sleep(LEASE + 100);
    await expect(queue.heartbeat(claim, LEASE)).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.withLiveClaim(claim, note('late'))).rejects.toMatchObject(CLAIM_LOST);
    await expect(queue.complete(claim, 'REVISION_ACTIVATED', null)).rejects.toMatchObject(CLAIM_LOST);
    expect(await effects()).toEqual([]);
  });

  it('[K-9] an expired claim without attempts left is claimed once more as a closing pass (no attempt started); the pass fails it with LEASE_EXPIRED, and the lane moves on', async () => {
    const doomed = await enqueue({ maxAttempts: 1 });
    const next = await enqueue();
    const last = (await queue.claim('w1', LEASE))!;
    expect(last.closing).toBeUndefined();
    await sleep(LEASE + 100);
    // The lane's claimed slot stays taken: the closing pass comes first, and nothing else of the lane runs beside it.
    const closing = (await queue.claim('w2', 5_000))!;
    expect(closing).toMatchObject({ closing: true, item: { key: doomed.key, state: 'claimed', attempts: 1, reasonCode: 'LEASE_EXPIRED' } });
    expect(closing.item.lastAttemptAt).toBe(last.item.lastAttemptAt);
    expect(closing.item.attemptClaimedAt).toEqual(last.item.attemptClaimedAt);
    expect(await queue.claim('w3', 5_000)).toBeNull();
    await expect(queue.heartbeat(last, LEASE)).rejects.toMatchObject(CLAIM_LOST);
    expect(await queue.retry(closing, 'LEASE_EXPIRED', 'The lease expired during the last attempt.')).toBe('failed');
    expect(await queue.get(doomed.key)).toMatchObject({ state: 'failed', reasonCode: 'LEASE_EXPIRED', attempts: 1, leaseExpiresAt: null });
    expect((await queue.claim('w3', 5_000))!.item.key).toBe(next.key);
  });

  it('[K-9] a closing pass whose lease runs out too is not handed out again: the claim fails the item with LEASE_EXPIRED, and the lane moves on', async () => {
    const doomed = await enqueue({ maxAttempts: 1 });
    const next = await enqueue();
    await queue.claim('w1', LEASE);
    await sleep(LEASE + 100);
    expect(await queue.claim('w2', LEASE)).toMatchObject({ closing: true, item: { key: doomed.key } });
    await sleep(LEASE + 100);
    const claim = (await queue.claim('w3', 5_000))!;
    expect(claim.item.key).toBe(next.key);
    expect(claim.closing).toBeUndefined();
    expect(await queue.get(doomed.key)).toMatchObject({
      state: 'failed',
      reasonCode: 'LEASE_EXPIRED',
      attempts: 1,
      leaseExpiresAt: null,
      errorMessage: 'The lease expired during the last attempt.',
    });
  });

  it('[K-9] an expired claim with attempts left starts its next attempt, not a closing pass', async () => {
    const item = await enqueue({ maxAttempts: 2 });
    await queue.claim('w1', LEASE);
    await sleep(LEASE + 100);
    const second = (await queue.claim('w2', LEASE))!;
    expect(second).toMatchObject({ item: { key: item.key, attempts: 2, reasonCode: 'LEASE_EXPIRED' } });
    expect(second.closing).toBeUndefined();
    expect(second.item.attemptClaimedAt).toHaveLength(2);
  });
});

describe('withLiveClaim', () => {
  it('commits fn’s writes with the claim check and returns its value', async () => {
    await enqueue();
    const claim = (await queue.claim('w1', 5_000))!;
    expect(await queue.withLiveClaim(claim, async (tx) => (await note('pointer moved')(tx), 42))).toBe(42);
    expect(await effects()).toEqual(['pointer moved']);
    expect(await queue.get(claim.item.key)).toMatchObject({ state: 'claimed' });
  });

  it('rolls back fn’s writes when fn throws, and the claim stays live', async () => {
    await enqueue();
    const claim = (await queue.claim('w1', 5_000))!;
    await expect(
      queue.withLiveClaim(claim, async (tx) => {
        await note('half done')(tx);
        throw new Error('activation failed');
      }),
    ).rejects.toThrow('activation failed');
    expect(await effects()).toEqual([]);
    await queue.heartbeat(claim, 5_000);
  });

  it('refuses a finished item', async () => {
    await enqueue();
    const claim = (await queue.claim('w1', 5_000))!;
    await queue.complete(claim, 'REVISION_ACTIVATED', null);
    await expect(queue.withLiveClaim(claim, note('after'))).rejects.toMatchObject(CLAIM_LOST);
    expect(await effects()).toEqual([]);
  });

  it('binds the transaction through the configured unit of work', async () => {
    const bound = createWorkQueue(db, { bind: (q) => ({ effects: { add: (text: string) => note(text)(q) } }) });
    await enqueue();
    const claim = (await bound.claim('w1', 5_000))!;
    await bound.withLiveClaim(claim, (uow) => uow.effects.add('via uow'));
    expect(await effects()).toEqual(['via uow']);
  });
});
