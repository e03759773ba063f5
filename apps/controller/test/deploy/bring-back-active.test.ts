import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRevision } from '@occ/contracts';
import {
  activeRevisionId,
  admit,
  newDeployTarget,
  scriptedByAgent,
  sleep,
  startExtraWorker,
  waitFor,
  waitTerminal,
  withActiveRevision,
  workRow,
  type DeployTarget,
} from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/**
 * What runs after a candidate fails is decided once, by the worker, from the Agent's pointer
 * (worker/give-up-candidate.ts); every ComputeDriver only knows how (`restoreRevision`).
 */
describe('the worker brings the active revision back after a failed candidate', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 }, work: { maxAttempts: 2 } });
  });
  afterAll(async () => t?.close());

  /** The Agent's effects in order, as `op:revision number`. */
  const timeline = (target: DeployTarget, numbers: Map<string, number>) =>
    effects.filter((e) => e.agentId === target.agentId).map((e) => `${e.op}:${numbers.get(e.revisionId) ?? '?'}`);

  it('[K-4] a failing candidate: after each failed attempt the active revision is restored, before the next attempt; the pointer never moves', async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 2 ? { runtimeFailure: { code: 'PLUGIN_SOURCE_UNREACHABLE', message: 'x' } } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'failed', reasonCode: 'PLUGIN_SOURCE_UNREACHABLE', attempts: 2 });
    const numbers = new Map([
      [one.id, 1],
      [two.id, 2],
    ]);
    expect(timeline(target, numbers)).toEqual(['prepare:1', 'activate:1', 'prepare:2', 'restore:1', 'prepare:2', 'restore:1']);
    expect(await activeRevisionId(t, target)).toBe(one.id);
  });

  it('[K-1][K-4] a failure no retry cures restores the active revision once, then fails', async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 2 ? { runtimeFailure: { code: 'PLUGIN_POLICY_INVALID', message: 'x' } } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'failed', reasonCode: 'PLUGIN_POLICY_INVALID', attempts: 1 });
    expect(effects.filter((e) => e.agentId === target.agentId && e.op === 'restore').map((e) => e.revisionId)).toEqual([one.id]);
  });

  it('[K-4] an attempt that throws (a target that did not answer) restores the active revision too', async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision, call) => (revision.revision === 2 && call === 1 ? { crash: true } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'succeeded', active: true });
    const numbers = new Map([
      [one.id, 1],
      [two.id, 2],
    ]);
    expect(timeline(target, numbers).slice(0, 5)).toEqual(['prepare:1', 'activate:1', 'prepare:2', 'restore:1', 'prepare:2']);
  });

  it('[K-4] an Agent with no active revision, or a stopped one, gets nothing restored', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ runtimeFailure: { code: 'PLUGIN_SOURCE_UNREACHABLE', message: 'x' } }));
    const first = await admit(t, target);
    expect(await waitTerminal(t, target, first.id)).toMatchObject({ state: 'failed' });

    // Stopped while its candidate prepares: the failed attempt finds the Agent stopped.
    const { target: stopped } = await withActiveRevision(t);
    let stopping: Promise<unknown> | null = null;
    script.prepare.set(stopped.agentId, (revision) => {
      if (revision.revision !== 2) return {};
      stopping ??= t.request({ method: 'POST', url: `${stopped.url}/stop` });
      return { delayMs: 1_000, runtimeFailure: { code: 'PLUGIN_SOURCE_UNREACHABLE', message: 'x' } };
    });
    const two = await admit(t, stopped);
    await waitTerminal(t, stopped, two.id);
    expect(((await stopping) as { status: number } | null)?.status).toBe(202);
    expect(effects.filter((e) => e.agentId === stopped.agentId && e.op === 'prepare' && e.revisionId === two.id)).toHaveLength(1);
    expect(effects.filter((e) => (e.agentId === target.agentId || e.agentId === stopped.agentId) && e.op === 'restore')).toEqual([]);
  });
});

/**
 * A deploy whose candidate never becomes ready fails at its convergence deadline
 * (CONVERGENCE_DEADLINE_EXCEEDED); on its last look the worker stops the candidate — Recreate
 * stopped the active revision for it — and brings the active revision back, before the item
 * fails (worker/give-up-candidate.ts, `abandonCandidate`).
 */
describe('the worker gives up a candidate still starting at the deadline', () => {
  const CONVERGENCE_MS = 3_000;
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 100 }, work: { convergenceMs: CONVERGENCE_MS } });
  });
  afterAll(async () => t?.close());

  it('[K-1][K-4] its last look stops the candidate and restores the active revision, then the deploy fails; the pointer never moves', async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 2 ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id, CONVERGENCE_MS + 15_000)).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED', attempts: 0 });
    const mine = effects.filter((e) => e.agentId === target.agentId);
    const lastPrepare = mine.findLastIndex((e) => e.op === 'prepare');
    expect(mine[lastPrepare]?.revisionId).toBe(two.id);
    // Several looks first (a wait is no attempt), then, after the last one: stop the candidate, bring the active one back.
    expect(mine.filter((e) => e.op === 'prepare' && e.revisionId === two.id).length).toBeGreaterThan(1);
    expect(mine.slice(lastPrepare + 1).map((e) => `${e.op}:${e.revisionId === one.id ? 1 : 2}:${e.outcome}`)).toEqual(['stop:2:ok', 'restore:1:ok']);
    expect(await activeRevisionId(t, target)).toBe(one.id);
  });
});

describe('a deploy whose last look comes after an OCC restart', () => {
  const CONVERGENCE_MS = 3_000;
  let t: TestController;
  beforeAll(async () => {
    // No in-process worker: the test runs the OCC before and after the restart as two workers.
    t = await startTestController({ work: { convergenceMs: CONVERGENCE_MS } });
  });
  afterAll(async () => t?.close());

  it('[K-1][K-4] its candidate, gone with the OCC that started it, is looked at as a last look (the target starts nothing), then given up: the deploy fails at its deadline', async () => {
    const target = await newDeployTarget(t);
    const neverReady = (revision: AgentRevision) => (revision.revision === 2 ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {});
    const before = createScriptedCompute({ prepare: neverReady });
    const first = startExtraWorker(t, before, { workerId: 'before-restart', settings: { convergencePollMs: 100 } });
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded' });
    const two = await admit(t, target);
    await waitFor(
      'revision 2 to start',
      async () => before.effects.filter((e) => e.revisionId === two.id && e.op === 'prepare').length,
      (n) => n >= 1,
    );
    // OCC stops, and its candidate with it; it comes back after the deploy's deadline.
    await first.stop();
    const deadline = new Date((await workRow(t, two.id))!.deadline_at).getTime();
    await sleep(Math.max(0, deadline - Date.now()) + 300);
    // The restarted OCC's target runs what recovery brings back (the active revision), not the candidate.
    const after = createScriptedCompute({ prepare: neverReady });
    const second = startExtraWorker(t, after, { workerId: 'after-restart' });
    try {
      expect(await waitTerminal(t, target, two.id, 15_000)).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED' });
    } finally {
      await second.stop();
    }
    // Every look before the deadline may start it; only the last one says it must not.
    expect(before.effects.filter((e) => e.op === 'prepare' && e.revisionId === two.id).every((e) => e.lastLook === undefined)).toBe(true);
    const mine = after.effects.filter((e) => e.agentId === target.agentId).map((e) => `${e.op}:${e.revisionId === one.id ? 1 : 2}:${e.cause ?? (e.lastLook ? 'last look' : '')}`);
    expect(mine).toEqual(['restore:1:recovery', 'prepare:2:last look', 'stop:2:', 'restore:1:candidate-failed']);
    expect(await activeRevisionId(t, target)).toBe(one.id);
  });
});
