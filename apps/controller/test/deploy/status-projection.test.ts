import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeRevisionId,
  admit,
  deploymentStatus,
  effectsOf,
  newDeployTarget,
  scriptedByAgent,
  startExtraWorker,
  waitFor,
  waitTerminal,
  workRow,
} from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

const CONVERGENCE_MS = 3_000;

describe('deployment status projection', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    // No in-process worker: each test starts (and stops) the worker it needs, so "queued" is observable.
    t = await startTestController({ compute: script.compute, work: { maxAttempts: 5, convergenceMs: CONVERGENCE_MS } });
  });
  afterAll(async () => t?.close());

  async function withWorker<T>(fn: () => Promise<T>, options: Parameters<typeof startExtraWorker>[2] = {}): Promise<T> {
    const worker = startExtraWorker(t, script.compute, options);
    try {
      return await fn();
    } finally {
      await worker.stop();
    }
  }

  it('[K-6] queued before any claim, running while prepare has not finished (pointer unchanged), then succeeded', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    const row = await workRow(t, rev.id);
    const queued = await deploymentStatus(t, target, rev.id);
    expect(queued).toEqual({
      revisionId: rev.id,
      agentId: target.agentId,
      revision: 1,
      state: 'queued',
      reasonCode: null,
      attempts: 0,
      lastAttempt: null,
      nextAttemptAt: new Date(row!.available_at).toISOString(),
      error: null,
      warnings: [],
      active: false,
    });

    script.prepare.set(target.agentId, () => ({ delayMs: 1_500 }));
    await withWorker(async () => {
      await waitFor(
        'prepare to start',
        async () => effectsOf(effects, rev.id, 'prepare').length,
        (n) => n > 0,
      );
      const running = await deploymentStatus(t, target, rev.id);
      expect(running).toMatchObject({ state: 'running', attempts: 1, nextAttemptAt: null, error: null, warnings: [], active: false });
      expect(Date.parse(running.lastAttempt.at)).toBeGreaterThanOrEqual(Date.parse(rev.createdAt) - 1_000);
      expect(await activeRevisionId(t, target)).toBeNull();
      expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, nextAttemptAt: null, error: null });
    });
  });

  it('nextAttemptAt is the stored next attempt time while a failed attempt waits for its retry', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ runtimeFailure: { code: 'GATEWAY_START_FAILED', message: 'The gateway exited during startup.' } }));
    const rev = await admit(t, target);
    // A long backoff keeps the item waiting; the worker is stopped once the first attempt is spent.
    await withWorker(
      () =>
        waitFor(
          'the first retry',
          () => workRow(t, rev.id),
          (r) => r?.state === 'queued' && r.attempts === 1,
        ),
      { backoff: { baseMs: 120_000, capMs: 120_000 } },
    );
    const row = (await workRow(t, rev.id))!;
    const waiting = await deploymentStatus(t, target, rev.id);
    expect(waiting).toMatchObject({ state: 'running', reasonCode: 'GATEWAY_START_FAILED', attempts: 1, error: null, warnings: [], active: false });
    expect(waiting.lastAttempt).toEqual({ code: 'GATEWAY_START_FAILED', at: new Date(row.last_attempt_at).toISOString() });
    expect(waiting.nextAttemptAt).toBe(new Date(row.available_at).toISOString());
    expect(Date.parse(waiting.nextAttemptAt)).toBeGreaterThanOrEqual(Date.parse(waiting.lastAttempt.at));
  });

  it('error {code, message} once a deploy has failed for good', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ runtimeFailure: { code: 'GATEWAY_START_FAILED', message: 'The gateway exited during startup.' } }));
    const rev = await admit(t, target);
    const failed = await withWorker(() => waitTerminal(t, target, rev.id));
    expect(failed).toMatchObject({
      state: 'failed',
      reasonCode: 'GATEWAY_START_FAILED',
      attempts: 5,
      nextAttemptAt: null,
      active: false,
      warnings: [],
      // The driver's own text never reaches stored status: the message is fixed, naming the code.
      error: { code: 'GATEWAY_START_FAILED', message: 'The runtime did not start (GATEWAY_START_FAILED).' },
    });
    expect(failed.lastAttempt.code).toBe('GATEWAY_START_FAILED');
  });

  it('a revision that never becomes ready fails with CONVERGENCE_DEADLINE_EXCEEDED; the waits spend no attempt', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ ready: false, pendingReason: 'REVISION_UNSCHEDULABLE' }));
    const rev = await admit(t, target);
    const final = await withWorker(async () => {
      const waiting = await waitFor(
        'a convergence wait',
        () => deploymentStatus(t, target, rev.id),
        (s) => s.reasonCode === 'REVISION_UNSCHEDULABLE' && s.state === 'running' && s.nextAttemptAt !== null,
      );
      expect(waiting).toMatchObject({ attempts: 0, error: null, active: false });
      return waitTerminal(t, target, rev.id, CONVERGENCE_MS + 15_000);
    });
    expect(final).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED', attempts: 0, nextAttemptAt: null, active: false });
    expect(final.error.code).toBe('CONVERGENCE_DEADLINE_EXCEEDED');
    expect(final.error.message).toContain('REVISION_UNSCHEDULABLE');
    // Far more looks than the attempt limit (5): a wait is not an attempt.
    expect(effectsOf(effects, rev.id, 'prepare').length).toBeGreaterThan(5);
    expect(effectsOf(effects, rev.id, 'activate')).toHaveLength(0);
    expect(await activeRevisionId(t, target)).toBeNull();
    // It failed at (not long before) its deadline.
    const row = (await workRow(t, rev.id))!;
    expect(new Date(row.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(row.deadline_at).getTime());
  });

  it('a compute code outside the reason-code registry is served as the registry fallback (RUNTIME_FAILED, REVISION_INCOMPLETE)', async () => {
    const failing = await newDeployTarget(t);
    script.prepare.set(failing.agentId, () => ({ runtimeFailure: { code: 'SOMETHING_NEW', message: 'x' } }));
    const pending = await newDeployTarget(t);
    script.prepare.set(pending.agentId, () => ({ ready: false, pendingReason: 'NOT_A_REGISTERED_REASON' }));
    const [failRev, pendRev] = [await admit(t, failing), await admit(t, pending)];
    await withWorker(async () => {
      const retried = await waitFor(
        'a failed attempt',
        () => deploymentStatus(t, failing, failRev.id),
        (s) => s.attempts >= 1 && s.reasonCode !== null,
      );
      expect(retried.reasonCode).toBe('RUNTIME_FAILED');
      const waiting = await waitFor(
        'a convergence wait',
        () => deploymentStatus(t, pending, pendRev.id),
        (s) => s.reasonCode !== null,
      );
      expect(waiting.reasonCode).toBe('REVISION_INCOMPLETE');
    });
  });
});
