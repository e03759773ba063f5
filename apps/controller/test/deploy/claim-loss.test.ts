import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimLostError, type Claim } from '../../src/core/ports/work-queue.ts';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import type { UnitOfWork } from '../../src/core/ports/state.ts';
import { unitOfWork } from '../../src/state/state-store.ts';
import { createWorkQueue } from '../../src/state/work-queue/index.ts';
import {
  activeRevisionId,
  admit,
  deploymentStatus,
  newDeployTarget,
  sleep,
  stallable,
  startExtraWorker,
  waitFor,
  waitTerminal,
  workRow,
} from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute, type PrepareStep } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

const LEASE_MS = 1_000;

/**
 * A worker on a connection the test can stall (`link.stall()`): its heartbeats stop reaching the
 * database, its lease runs out, and it gives up on its own (`work:claim-lost` in `events`, then it stops).
 */
function startStallableWorker(t: TestController, compute: ComputeDriver, workerId: string) {
  const link = stallable(t.database);
  const events: string[] = [];
  const worker: ReturnType<typeof startExtraWorker> = startExtraWorker(t, compute, {
    database: link.database,
    workerId,
    settings: { leaseMs: LEASE_MS },
    log: (event) => {
      events.push(event);
      if (event === 'work:claim-lost') void worker.stop();
    },
  });
  return { worker, link, events };
}

describe('[K-9] claim loss', () => {
  let t: TestController;
  let queue: ReturnType<typeof createWorkQueue<UnitOfWork>>;
  beforeAll(async () => {
    // No in-process worker: each test runs the workers it needs on the controller's database.
    t = await startTestController();
    queue = createWorkQueue<UnitOfWork>(t.database, { bind: unitOfWork });
  });
  afterAll(async () => t?.close());

  /** Every transition under a lost claim throws ClaimLostError and writes nothing (a callback never runs). */
  async function expectFenced(claim: Claim) {
    const before = await workRow(t, claim.item.revisionId!);
    await expect(queue.complete(claim, 'REVISION_ACTIVATED', { warnings: [] })).rejects.toBeInstanceOf(ClaimLostError);
    await expect(queue.heartbeat(claim, 60_000)).rejects.toBeInstanceOf(ClaimLostError);
    await expect(queue.retry(claim, 'WORKER_ERROR', 'stale retry')).rejects.toBeInstanceOf(ClaimLostError);
    await expect(queue.defer(claim, 'RUNTIME_STARTING', 10)).rejects.toBeInstanceOf(ClaimLostError);
    await expect(queue.fail(claim, 'INVALID_TARGET', 'stale failure')).rejects.toBeInstanceOf(ClaimLostError);
    let ran = false;
    const { namespaceId, agentId, revisionId } = claim.item;
    await expect(queue.withLiveClaim(claim, async (uow) => ((ran = true), uow.agents.compareAndSetActiveRevision(namespaceId, agentId, null, revisionId)))).rejects.toBeInstanceOf(
      ClaimLostError,
    );
    expect(ran).toBe(false);
    expect(await workRow(t, revisionId!)).toEqual(before);
  }

  const variants: [string, PrepareStep, string | undefined][] = [
    ['an effect that honours the AbortSignal', { delayMs: 120_000 }, 'aborted'],
    ['an effect that hangs and ignores the signal', { hang: true }, undefined],
  ];

  it.each(variants)(
    'a worker whose database stalls gives up %s when its lease runs out, publishes nothing, and another worker completes the deploy',
    async (_name, step, outcome) => {
      const target = await newDeployTarget(t);
      const rev = await admit(t, target);
      const staleCompute = createScriptedCompute({ prepare: () => step });
      // A starting worker also restores the other Agents' active revisions (recover-active.ts): only this Agent's effects count.
      const ownEffects = (compute: typeof staleCompute) => compute.effects.filter((e) => e.agentId === target.agentId);
      const { worker: stale, link, events } = startStallableWorker(t, staleCompute, 'stale-worker');
      await waitFor(
        'the stale prepare',
        async () => ownEffects(staleCompute).length,
        (n) => n > 0,
      );
      const held = (await workRow(t, rev.id))!;
      expect(held).toMatchObject({ state: 'claimed', claimed_by: 'stale-worker', attempts: 1, reason_code: null });

      // The connection stalls: heartbeats no longer reach the database; the worker must give up on its own.
      link.stall();
      const stalledAt = Date.now();
      await waitFor(
        'the local abort',
        async () => [...events],
        (e) => e.includes('work:claim-lost'),
        10_000,
      );
      expect(Date.now() - stalledAt).toBeLessThan(LEASE_MS + 2_000);
      await stale.stop();
      expect(events).not.toContain('work:done');
      expect(events).not.toContain('work:error');
      expect(link.held()).toBeGreaterThan(0);
      const effect = ownEffects(staleCompute)[0]!;
      if (outcome)
        await waitFor(
          'the effect to see the abort',
          async () => effect.outcome,
          (o) => o === outcome,
          5_000,
        );
      else expect(effect.outcome).toBeUndefined();
      // Nothing was published for that attempt: the row is exactly as claimed, and nothing is active.
      expect(await workRow(t, rev.id)).toMatchObject({ state: 'claimed', claim_token: held.claim_token, attempts: 1, reason_code: null, result: null, error_message: null });
      expect(await deploymentStatus(t, target, rev.id)).toMatchObject({ state: 'running', active: false });
      expect(await activeRevisionId(t, target)).toBeNull();

      // Another worker recovers the item once the lease has expired, and reads readiness again.
      const freshCompute = createScriptedCompute();
      const fresh = startExtraWorker(t, freshCompute, { workerId: 'fresh-worker' });
      try {
        expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', attempts: 2, active: true });
      } finally {
        await fresh.stop();
      }
      expect(ownEffects(freshCompute).map((e) => `${e.op}:${e.outcome}`)).toEqual(['prepare:ok', 'activate:ok']);
      expect(ownEffects(staleCompute).map((e) => e.op)).toEqual(['prepare']);
      expect(await activeRevisionId(t, target)).toBe(rev.id);

      // The stale connection comes back: its held heartbeat reaches the database late and is fenced off.
      link.resume();
      await waitFor(
        'the held calls to drain',
        async () => link.held(),
        (n) => n === 0,
      );
      await sleep(100);
      const done = (await workRow(t, rev.id))!;
      expect(done).toMatchObject({ state: 'succeeded', reason_code: 'REVISION_ACTIVATED', claimed_by: 'fresh-worker', claim_token: null, lease_expires_at: null });

      // The first claim's token is rejected by every transition.
      const item = (await queue.get(held.idempotency_key))!;
      await expectFenced({ item, token: held.claim_token, leaseExpiresAt: new Date(held.lease_expires_at) });
      expect(await deploymentStatus(t, target, rev.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true });
    },
  );

  it('a claim whose lease ran out can neither complete nor move the pointer, even before anyone recovers it', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    const claim = (await queue.claim('manual-stale', 300))!;
    expect(claim.item).toMatchObject({ revisionId: rev.id, attempts: 1 });
    await sleep(700);
    await expectFenced(claim);
    expect(await activeRevisionId(t, target)).toBeNull();
    expect(await workRow(t, rev.id)).toMatchObject({ state: 'claimed', claim_token: claim.token, reason_code: null });

    // A later claim recovers it (noting LEASE_EXPIRED, the attempt spent); the old token stays rejected.
    const recovered = (await queue.claim('manual-fresh', 30_000))!;
    expect(recovered.item).toMatchObject({ key: claim.item.key, attempts: 2, reasonCode: 'LEASE_EXPIRED' });
    expect(recovered.token).not.toBe(claim.token);
    await expectFenced(claim);
    expect(await queue.withLiveClaim(recovered, (uow) => uow.agents.compareAndSetActiveRevision(target.ns, target.agentId, null, rev.id))).toBe(true);
    await queue.complete(recovered, 'REVISION_ACTIVATED', { warnings: [] });
    expect(await deploymentStatus(t, target, rev.id)).toMatchObject({ state: 'succeeded', attempts: 2, active: true });
  });
});

describe('[K-9] a claim lost on the last attempt', () => {
  let t: TestController;
  beforeAll(async () => {
    // One attempt per deploy: a lost claim is the last one. No in-process worker: the test runs its own.
    t = await startTestController({ work: { maxAttempts: 1 } });
  });
  afterAll(async () => t?.close());

  it('[K-1][K-4][K-9] its worker dies with the candidate starting: the next worker stops that candidate and brings the active revision back, then the deploy fails LEASE_EXPIRED; the pointer never moves', async () => {
    const target = await newDeployTarget(t);
    // One target for both workers, so its effects are one timeline: revision 2's start never answers.
    const compute = createScriptedCompute({ prepare: (revision) => (revision.revision === 2 ? { hang: true } : {}) });
    const mine = () => compute.effects.filter((e) => e.agentId === target.agentId && e.cause !== 'recovery');
    const { worker: dying, link, events } = startStallableWorker(t, compute, 'dying-worker');
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded', active: true });
    const two = await admit(t, target);
    await waitFor(
      'revision 2 to start',
      async () => mine().map((e) => e.op),
      (ops) => ops.length === 3,
    );
    // Its database goes away mid-attempt: heartbeats stop, the lease of the deploy's only attempt runs out.
    link.stall();
    await waitFor(
      'the dying worker to give up',
      async () => [...events],
      (e) => e.includes('work:claim-lost'),
      10_000,
    );
    await dying.stop();
    expect(await workRow(t, two.id)).toMatchObject({ state: 'claimed', claimed_by: 'dying-worker', attempts: 1 });

    const next = startExtraWorker(t, compute, { workerId: 'next-worker' });
    try {
      expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'failed', reasonCode: 'LEASE_EXPIRED', attempts: 1, active: false });
    } finally {
      await next.stop();
      link.resume();
    }
    const numbered = mine().map((e) => `${e.op}:${e.revisionId === one.id ? 1 : 2}`);
    expect(numbered).toEqual(['prepare:1', 'activate:1', 'prepare:2', 'stop:2', 'restore:1']);
    expect(mine().at(-1)).toMatchObject({ cause: 'candidate-failed', outcome: 'ok' });
    expect(await activeRevisionId(t, target)).toBe(one.id);
    expect(await workRow(t, two.id)).toMatchObject({ claimed_by: 'next-worker', error_message: 'The lease expired during the last attempt.' });
  });

  it('[K-4][K-9] a claim lost after the pointer moved: the closing pass activates the new active revision and retires its predecessor, never gives it up, and fails the deploy LEASE_EXPIRED', async () => {
    const target = await newDeployTarget(t);
    const compute = createScriptedCompute();
    const queue = createWorkQueue<UnitOfWork>(t.database, { bind: unitOfWork });
    const one = await admit(t, target);
    const first = startExtraWorker(t, compute, { workerId: 'first-worker' });
    try {
      expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded', active: true });
    } finally {
      await first.stop();
    }
    const two = await admit(t, target);
    // A worker claims revision 2's only attempt, finds it ready, moves the pointer, and dies before activating it.
    const lost = (await queue.claim('dying-worker', 300))!;
    expect(lost.item).toMatchObject({ revisionId: two.id, attempts: 1, maxAttempts: 1 });
    expect(await queue.withLiveClaim(lost, (uow) => uow.agents.compareAndSetActiveRevision(target.ns, target.agentId, one.id, two.id))).toBe(true);
    await sleep(700);
    const before = compute.effects.length;
    const next = startExtraWorker(t, compute, { workerId: 'next-worker' });
    try {
      expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'failed', reasonCode: 'LEASE_EXPIRED', attempts: 1, active: true });
    } finally {
      await next.stop();
    }
    // Recovery at the worker's start aside, the closing pass did what the lost attempt had left: activate 2, retire 1.
    const closing = compute.effects.slice(before).filter((e) => e.agentId === target.agentId && e.cause !== 'recovery');
    expect(closing.map((e) => `${e.op}:${e.revisionId === one.id ? 1 : 2}:${e.outcome}`)).toEqual(['activate:2:ok', 'retire:1:ok']);
    expect(await activeRevisionId(t, target)).toBe(two.id);
    expect(await workRow(t, two.id)).toMatchObject({ claimed_by: 'next-worker', closing_claimed_at: expect.any(Date) });
  });

  it('[K-9] a claim lost after the pointer moved, and the Agent stopped since: the closing pass activates nothing, and the stop that follows stops the revision', async () => {
    const target = await newDeployTarget(t);
    const compute = createScriptedCompute();
    const queue = createWorkQueue<UnitOfWork>(t.database, { bind: unitOfWork });
    const rev = await admit(t, target);
    const lost = (await queue.claim('dying-worker', 300))!;
    expect(await queue.withLiveClaim(lost, (uow) => uow.agents.compareAndSetActiveRevision(target.ns, target.agentId, null, rev.id))).toBe(true);
    expect((await t.request({ method: 'POST', url: `${target.url}/stop` })).status).toBe(202);
    await sleep(700);
    const before = compute.effects.length;
    const next = startExtraWorker(t, compute, { workerId: 'next-worker' });
    try {
      expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'failed', reasonCode: 'LEASE_EXPIRED', attempts: 1 });
      await waitFor(
        'the stop to end',
        async () => (await t.database.query(`SELECT state FROM work_items WHERE agent_id = $1 AND kind = 'stop_agent'`, [target.agentId])).rows[0]?.state,
        (state) => state === 'succeeded',
      );
    } finally {
      await next.stop();
    }
    const mine = compute.effects.slice(before).filter((e) => e.agentId === target.agentId && e.cause !== 'recovery');
    expect(mine.map((e) => e.op)).toEqual(['stop']);
    expect(await activeRevisionId(t, target)).toBeNull();
  });

  it('[K-9] a stop, then a removal, whose last attempts lost their claims are run once more by their closing passes: the runtime stops, the Agent is removed from compute (audited), both succeed', async () => {
    const target = await newDeployTarget(t);
    const compute = createScriptedCompute();
    const rev = await admit(t, target);
    const first = startExtraWorker(t, compute, { workerId: 'first-worker' });
    try {
      expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'succeeded', active: true });
    } finally {
      await first.stop();
    }
    expect((await t.request({ method: 'POST', url: `${target.url}/stop` })).status).toBe(202);
    const queue = createWorkQueue<UnitOfWork>(t.database, { bind: unitOfWork });
    /** A worker claims the item's only attempt and dies before any compute call; the next worker's closing pass ends it. */
    const closedAfterLoss = async (kind: string) => {
      const lost = (await queue.claim('dying-worker', 300))!;
      expect(lost.item).toMatchObject({ kind, agentId: target.agentId, attempts: 1, maxAttempts: 1 });
      await sleep(700);
      const next = startExtraWorker(t, compute, { workerId: 'next-worker' });
      try {
        return await waitFor(
          `the ${kind} to end`,
          async () => (await queue.get(lost.item.key))!,
          (item) => item.state !== 'claimed',
        );
      } finally {
        await next.stop();
      }
    };
    expect(await closedAfterLoss('stop_agent')).toMatchObject({ state: 'succeeded', reasonCode: 'AGENT_STOPPED', attempts: 1, result: { stoppedRevisionId: rev.id } });
    expect(compute.effects.filter((e) => e.agentId === target.agentId && e.op === 'stop').map((e) => e.revisionId)).toEqual([rev.id]);
    expect(await activeRevisionId(t, target)).toBeNull();

    expect((await t.request({ method: 'DELETE', url: target.url })).status).toBe(204);
    expect(await closedAfterLoss('remove_agent')).toMatchObject({ state: 'succeeded', reasonCode: 'AGENT_REMOVED', attempts: 1 });
    expect(compute.effects.filter((e) => e.agentId === target.agentId && e.op === 'remove').map((e) => e.outcome)).toEqual(['ok']);
    const audited = await t.database.query(`SELECT outcome FROM audit_events WHERE action = 'agents.compute_removed' AND resource_id = $1`, [target.agentId]);
    expect(audited.rows).toEqual([{ outcome: 'success' }]);
  });
});
