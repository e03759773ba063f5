import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import { isLastLook, type Claim, type EnqueueRequest, type WorkQueue } from '../../src/core/ports/work-queue.ts';
import type { Database, Queryable } from '../../src/state/database.ts';
import { createWorkQueue, workQueueWriter } from '../../src/state/work-queue/index.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';

const BACKOFF = { baseMs: 40, capMs: 100 };
let db: Database;
let queue: WorkQueue<Queryable>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await createTestDatabase());
  queue = createWorkQueue(db, { backoff: BACKOFF });
});
afterAll(() => cleanup());
beforeEach(async () => void (await db.query('DELETE FROM work_items')));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const enqueue = (over: Partial<EnqueueRequest> = {}) =>
  db.transaction((tx) =>
    workQueueWriter(tx).enqueue({
      key: `agent:${newId('agent')}:stop`,
      kind: 'stop_agent',
      lane: 'agt_t',
      namespaceId: newId('namespace'),
      agentId: 'agt_t',
      actorId: newId('principal'),
      maxAttempts: 3,
      deadlineAt: new Date(Date.now() + 60_000),
      ...over,
    }),
  );
/** Claims as soon as something is available (polling, like a worker), or fails after `ms`. */
async function claimSoon(ms = 2_000): Promise<Claim> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) {
    const claim = await queue.claim('w', 5_000);
    if (claim) return claim;
  }
  throw new Error('nothing became claimable');
}
const delayOf = (key: string) =>
  db
    .query<{ ms: number }>(`SELECT extract(epoch FROM available_at - updated_at)::float8 * 1000 AS ms FROM work_items WHERE idempotency_key = $1`, [key])
    .then((r) => r.rows[0]!.ms);

describe('defer (convergence wait)', () => {
  it('requeues after the delay without spending an attempt', async () => {
    const item = await enqueue();
    let claim = await claimSoon();
    expect(claim.item.attempts).toBe(1);
    expect(await queue.defer(claim, 'RUNTIME_STARTING', 400)).toBe('queued');
    expect(await queue.get(item.key)).toMatchObject({ state: 'queued', attempts: 0, reasonCode: 'RUNTIME_STARTING', leaseExpiresAt: null });
    expect(await delayOf(item.key)).toBeGreaterThan(395);
    expect(await queue.claim('w', 5_000)).toBeNull();
    await sleep(420);
    for (let i = 0; i < 5; i++) {
      claim = await claimSoon();
      expect(claim.item.attempts).toBe(1);
      expect(await queue.defer(claim, 'RUNTIME_STARTING', 0)).toBe('queued');
    }
    expect(await queue.get(item.key)).toMatchObject({ attempts: 0, state: 'queued' });
  });

  it("hasten ends a convergence wait at once (the runtime's status changed); a claimed item, a retry's backoff or a finished one is left alone", async () => {
    const item = await enqueue();
    let claim = await claimSoon();
    // Claimed: nothing to hasten.
    expect(await queue.hasten(item.key)).toBe(false);
    await queue.defer(claim, 'RUNTIME_STARTING', 60_000);
    expect(await queue.claim('w', 5_000)).toBeNull();
    expect(await queue.hasten(item.key)).toBe(true);
    claim = await claimSoon(500);
    expect(claim.item).toMatchObject({ key: item.key, attempts: 1 });
    // A failed attempt's backoff is not a convergence wait: it is kept.
    await queue.retry(claim, 'RUNTIME_EXITED', 'The runtime exited.');
    expect(await queue.hasten(item.key)).toBe(false);
    claim = await claimSoon();
    await queue.complete(claim, 'REVISION_ACTIVATED', {});
    expect(await queue.hasten(item.key)).toBe(false);
    expect(await queue.hasten('agent:nobody:stop')).toBe(false);
  });

  it('hasten keeps the lane in order: an item that was already available is claimed first', async () => {
    const first = await enqueue();
    let claim = await claimSoon();
    await queue.defer(claim, 'RUNTIME_STARTING', 60_000);
    const second = await enqueue();
    await sleep(20);
    expect(await queue.hasten(first.key)).toBe(true);
    claim = await claimSoon();
    expect(claim.item.key).toBe(second.key);
  });

  it('never waits past the deadline, and a defer at the deadline fails the item', async () => {
    const deadlineAt = new Date(Date.now() + 1_000);
    const item = await enqueue({ deadlineAt });
    let claim = await claimSoon();
    expect(await queue.defer(claim, 'RUNTIME_STARTING', 60_000)).toBe('queued');
    expect((await queue.get(item.key))!.availableAt).toBe(deadlineAt.toISOString());
    claim = await claimSoon(2_000);
    expect(isLastLook(claim.item)).toBe(true);
    expect(await queue.defer(claim, 'RUNTIME_STARTING', 100)).toBe('failed');
    expect(await queue.get(item.key)).toMatchObject({
      state: 'failed',
      reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED',
      attempts: 0,
      leaseExpiresAt: null,
      errorMessage: 'The work did not converge before its deadline (last wait: RUNTIME_STARTING).',
    });
    expect(await queue.claim('w', 5_000)).toBeNull();
  });

  it('an attempt claimed before the deadline and deferred after it is not the last look: due at once, and the next look, claimed past the deadline, fails it', async () => {
    const deadlineAt = new Date(Date.now() + 1_500);
    const item = await enqueue({ deadlineAt });
    let claim = await claimSoon();
    expect(isLastLook(claim.item)).toBe(false);
    // The worker judged, when it looked, that this was not the last look: its defer must not fail the item.
    await sleep(deadlineAt.getTime() - Date.now() + 50);
    expect(await queue.defer(claim, 'RUNTIME_STARTING', 60_000)).toBe('queued');
    expect(await delayOf(item.key)).toBeLessThanOrEqual(1);
    claim = await claimSoon(500);
    expect(isLastLook(claim.item)).toBe(true);
    expect(await queue.defer(claim, 'RUNTIME_STARTING', 60_000)).toBe('failed');
    expect(await queue.get(item.key)).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED', attempts: 0 });
  });
});

describe('retry (failed attempt)', () => {
  it('spends the attempt and backs off with full jitter within [0, min(cap, base·2^(n−1))]', async () => {
    const item = await enqueue({ maxAttempts: 6 });
    for (let attempt = 1; attempt < 6; attempt++) {
      const claim = await claimSoon();
      expect(claim.item.attempts).toBe(attempt);
      expect(await queue.retry(claim, 'GATEWAY_START_FAILED', `attempt ${attempt} failed`)).toBe('queued');
      const delay = await delayOf(item.key);
      expect(delay).toBeGreaterThanOrEqual(-1);
      expect(delay).toBeLessThanOrEqual(Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** (attempt - 1)) + 1);
      expect(await queue.get(item.key)).toMatchObject({ state: 'queued', attempts: attempt, reasonCode: 'GATEWAY_START_FAILED', errorMessage: `attempt ${attempt} failed` });
    }
  });

  it('jitters: delays of one attempt number differ', async () => {
    const delays = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const item = await enqueue({ lane: `agt_${i}` });
      const claim = await claimSoon();
      await queue.retry(claim, 'GATEWAY_START_FAILED', 'x');
      delays.add(Math.round((await delayOf(item.key)) * 1000));
    }
    expect(delays.size).toBeGreaterThan(1);
  });

  it('fails permanently once the attempts reach maxAttempts', async () => {
    const item = await enqueue({ maxAttempts: 2 });
    expect(await queue.retry(await claimSoon(), 'GATEWAY_START_FAILED', 'first')).toBe('queued');
    const last = await claimSoon();
    expect(last.item.attempts).toBe(2);
    expect(await queue.retry(last, 'GATEWAY_START_FAILED', 'second')).toBe('failed');
    expect(await queue.get(item.key)).toMatchObject({ state: 'failed', attempts: 2, reasonCode: 'GATEWAY_START_FAILED', errorMessage: 'second', leaseExpiresAt: null });
    await sleep(BACKOFF.capMs + 20);
    expect(await queue.claim('w', 5_000)).toBeNull();
  });

  it('defer refunds what retry spends: a mix never exceeds the budget early', async () => {
    const item = await enqueue({ maxAttempts: 2 });
    await queue.defer(await claimSoon(), 'RUNTIME_STARTING', 0);
    await queue.retry(await claimSoon(), 'GATEWAY_START_FAILED', 'x');
    await queue.defer(await claimSoon(), 'RUNTIME_STARTING', 0);
    expect(await queue.get(item.key)).toMatchObject({ state: 'queued', attempts: 1 });
  });
});

describe('fail', () => {
  it('fails permanently with the code and message, keeping the attempt', async () => {
    const item = await enqueue();
    const claim = await claimSoon();
    await queue.fail(claim, 'AUTHORIZATION_DENIED', 'The actor may no longer deploy this Agent.');
    expect(await queue.get(item.key)).toMatchObject({
      state: 'failed',
      attempts: 1,
      reasonCode: 'AUTHORIZATION_DENIED',
      errorMessage: 'The actor may no longer deploy this Agent.',
    });
    for (const again of [
      () => queue.fail(claim, 'INVALID_TARGET', 'y'),
      () => queue.retry(claim, 'WORKER_ERROR', 'y'),
      () => queue.defer(claim, 'RUNTIME_STARTING', 0),
      () => queue.heartbeat(claim, 1_000),
    ]) {
      await expect(again()).rejects.toMatchObject({ code: 'CLAIM_LOST', name: 'ClaimLostError', key: item.key });
    }
  });
});
