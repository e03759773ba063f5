import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { EnqueueRequest, WorkQueue } from '../../src/core/ports/work-queue.ts';
import type { Database, Queryable } from '../../src/state/database.ts';
import { createWorkQueue, workQueueWriter } from '../../src/state/work-queue/index.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';

let db: Database;
let queue: WorkQueue<Queryable>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await createTestDatabase());
  queue = createWorkQueue(db);
});
afterAll(() => cleanup());
beforeEach(async () => void (await db.query('DELETE FROM work_items')));

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const request = (lane: string, over: Partial<EnqueueRequest> = {}): EnqueueRequest => {
  const revisionId = newId('agent_revision');
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
    ...over,
  };
};
const enqueue = (req: EnqueueRequest) => db.transaction((tx) => workQueueWriter(tx).enqueue(req));

describe('enqueue', () => {
  it('records a queued item and returns it', async () => {
    const req = request('agt_a');
    const item = await enqueue(req);
    expect(item).toEqual({
      key: req.key,
      id: expect.stringMatching(/^wrk_[0-9a-f-]{36}$/),
      kind: 'reconcile_revision',
      lane: 'agt_a',
      namespaceId: req.namespaceId,
      agentId: 'agt_a',
      revisionId: req.revisionId,
      actorId: req.actorId,
      state: 'queued',
      availableAt: expect.stringMatching(ISO),
      attempts: 0,
      maxAttempts: 3,
      deadlineAt: req.deadlineAt.toISOString(),
      lastAttemptAt: null,
      attemptClaimedAt: [],
      leaseExpiresAt: null,
      reasonCode: null,
      errorMessage: null,
      result: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await queue.get(req.key)).toEqual(item);
    expect(await queue.get('agent_revision:missing:reconcile')).toBeNull();
  });

  it('is idempotent on the key: a replay returns the existing item, even after it was claimed', async () => {
    const req = request('agt_a', { kind: 'stop_agent', revisionId: undefined, key: 'agent:agt_a:stop:1' });
    const first = await enqueue(req);
    expect(first.revisionId).toBeNull();
    expect(await enqueue(req)).toEqual(first);
    const claim = await queue.claim('w1', 5_000);
    expect(await enqueue({ ...req, maxAttempts: 9 })).toMatchObject({ id: first.id, state: 'claimed', maxAttempts: 3 });
    await queue.complete(claim!, 'AGENT_STOPPED', null);
    expect((await db.query('SELECT count(*)::int AS n FROM work_items')).rows[0]).toEqual({ n: 1 });
  });

  it('refuses to reuse a key for different work', async () => {
    const req = request('agt_a');
    await enqueue(req);
    await expect(enqueue({ ...req, lane: 'agt_b', agentId: 'agt_b' })).rejects.toThrow(/already names different work \(lane, agentId\)/);
  });

  it('commits or rolls back with the caller’s transaction', async () => {
    const req = request('agt_a');
    await expect(
      db.transaction(async (tx) => {
        await workQueueWriter(tx).enqueue(req);
        throw new Error('admission failed');
      }),
    ).rejects.toThrow('admission failed');
    expect(await queue.get(req.key)).toBeNull();
  });
});

describe('claim and complete', () => {
  it('claims with a fresh token and a database lease, starting an attempt', async () => {
    const req = request('agt_a');
    await enqueue(req);
    const before = Date.now();
    const claim = await queue.claim('worker-1', 2_000);
    expect(claim).not.toBeNull();
    expect(claim!.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(claim!.item).toMatchObject({ key: req.key, state: 'claimed', attempts: 1, lastAttemptAt: expect.stringMatching(ISO) });
    expect(claim!.item.leaseExpiresAt).toBe(claim!.leaseExpiresAt.toISOString());
    // The lease comes from the database clock (same host here, so it is close to ours).
    expect(Math.abs(claim!.leaseExpiresAt.getTime() - (before + 2_000))).toBeLessThan(1_000);
    expect(await queue.claim('worker-2', 2_000)).toBeNull();

    await queue.complete(claim!, 'REVISION_ACTIVATED', { warnings: [{ pluginId: 'p', code: 'PLUGIN_AUTH_REQUIRED' }] });
    expect(await queue.get(req.key)).toMatchObject({
      state: 'succeeded',
      reasonCode: 'REVISION_ACTIVATED',
      attempts: 1,
      leaseExpiresAt: null,
      result: { warnings: [{ pluginId: 'p', code: 'PLUGIN_AUTH_REQUIRED' }] },
    });
    await expect(queue.complete(claim!, 'REVISION_ACTIVATED', null)).rejects.toMatchObject({ code: 'CLAIM_LOST' });
    expect(await queue.claim('worker-1', 2_000)).toBeNull();
  });

  it("records when each attempt was first claimed: a convergence wait keeps its attempt's time, a retry starts the next", async () => {
    const req = request('agt_a');
    await enqueue(req);
    const claimSoon = async () => {
      for (const end = Date.now() + 3_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 10))) {
        const claim = await queue.claim('w', 5_000);
        if (claim) return claim;
      }
      throw new Error('nothing became claimable');
    };
    const first = await claimSoon();
    const attempt1 = first.item.lastAttemptAt;
    expect(first.item.attemptClaimedAt).toEqual([attempt1]);
    await queue.defer(first, 'RUNTIME_STARTING', 0);
    const resumed = await claimSoon();
    expect(resumed.item).toMatchObject({ attempts: 1, attemptClaimedAt: [attempt1] });
    expect(resumed.item.lastAttemptAt! > attempt1!).toBe(true);
    await queue.retry(resumed, 'GATEWAY_START_FAILED', 'x');
    const second = await claimSoon();
    expect(second.item).toMatchObject({ attempts: 2, attemptClaimedAt: [attempt1, second.item.lastAttemptAt] });
    expect(await queue.get(req.key)).toMatchObject({ attemptClaimedAt: [attempt1, second.item.lastAttemptAt] });
  });

  it('runs one item per lane at a time, oldest first within a lane', async () => {
    const a1 = await enqueue(request('agt_a'));
    const a2 = await enqueue(request('agt_a'));
    const b1 = await enqueue(request('agt_b'));
    const first = await queue.claim('w', 5_000);
    const second = await queue.claim('w', 5_000);
    expect([first!.item.key, second!.item.key]).toEqual([a1.key, b1.key]);
    expect(await queue.claim('w', 5_000)).toBeNull();
    await queue.complete(first!, 'REVISION_ACTIVATED', null);
    expect((await queue.claim('w', 5_000))!.item.key).toBe(a2.key);
  });

  it('keeps enqueue order for items written in one transaction', async () => {
    const reqs = Array.from({ length: 5 }, () => request('agt_same'));
    await db.transaction(async (tx) => {
      for (const req of reqs) await workQueueWriter(tx).enqueue(req);
    });
    for (const req of reqs) {
      const claim = await queue.claim('w', 5_000);
      expect(claim!.item.key).toBe(req.key);
      await queue.complete(claim!, 'REVISION_ACTIVATED', null);
    }
  });

  it('leaves items that are not yet available alone', async () => {
    const req = request('agt_a');
    await enqueue(req);
    await db.query(`UPDATE work_items SET available_at = now() + interval '1 hour' WHERE idempotency_key = $1`, [req.key]);
    expect(await queue.claim('w', 5_000)).toBeNull();
  });
});

describe("the worker's periodic checks (ensure_active) come after requested work", () => {
  const check = (lane: string) => request(lane, { key: `agent:${lane}:ensure-active`, kind: 'ensure_active' });

  it('a check due first is claimed after a deploy due later, in another lane and in its own; it waits while its lane is claimed', async () => {
    await enqueue(check('agt_c'));
    await enqueue(check('agt_d'));
    const elsewhere = await enqueue(request('agt_c'));
    const own = await enqueue(request('agt_d'));
    const claimed: string[] = [];
    for (;;) {
      const claim = await queue.claim('w', 5_000);
      if (!claim) break;
      claimed.push(claim.item.key);
      // The deploys first; the checks only once nothing else is due (and their lane is free again).
      if (claim.item.kind === 'reconcile_revision') expect(claimed.filter((k) => k.endsWith(':ensure-active'))).toEqual([]);
      await queue.complete(claim, claim.item.kind === 'ensure_active' ? 'ACTIVE_REVISION_ENSURED' : 'REVISION_ACTIVATED', null);
    }
    expect(claimed.slice(0, 2).sort()).toEqual([elsewhere.key, own.key].sort());
    expect(claimed.slice(2).sort()).toEqual(['agent:agt_c:ensure-active', 'agent:agt_d:ensure-active']);
  });

  it("a check due before its own lane's deploy lets the deploy go first, and is not claimed while the lane is", async () => {
    await enqueue(check('agt_e'));
    const deploy = await enqueue(request('agt_e'));
    const first = (await queue.claim('w1', 5_000))!;
    expect(first.item.key).toBe(deploy.key);
    expect(await queue.claim('w2', 5_000)).toBeNull();
    await queue.complete(first, 'REVISION_ACTIVATED', null);
    expect((await queue.claim('w2', 5_000))?.item.key).toBe('agent:agt_e:ensure-active');
  });
});
