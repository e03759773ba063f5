import type { PluginWarning } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PLUGIN,
  activeRevisionId,
  admit,
  deploymentStatus,
  effectsOf,
  newDeployTarget,
  scriptedByAgent,
  waitFor,
  waitTerminal,
  workRow,
} from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

describe('worker outcomes (finalizeRevision) with the in-process worker', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 }, work: { maxAttempts: 3 } });
  });
  afterAll(async () => t?.close());

  /** An Agent whose first revision is already active (a previous pointer to keep or replace). */
  async function activeTarget() {
    const target = await newDeployTarget(t);
    const first = await admit(t, target);
    expect(await waitTerminal(t, target, first.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
    return { target, first };
  }

  it('[K-5] a ready revision ends succeeded with REVISION_ACTIVATED and the Agent points at it', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    const status = await waitTerminal(t, target, rev.id);
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, attempts: 1, error: null, nextAttemptAt: null, warnings: [] });
    expect(status.lastAttempt).toMatchObject({ code: 'REVISION_ACTIVATED' });
    expect(await activeRevisionId(t, target)).toBe(rev.id);
    expect(effectsOf(effects, rev.id).map((e) => `${e.op}:${e.outcome}`)).toEqual(['prepare:ok', 'activate:ok']);
    expect((await workRow(t, rev.id))!.result).toEqual({ warnings: [] });
  });

  it('[K-8][W-1] only admitted warnings (a selected plugin, a known code) are stored with the successful result', async () => {
    const target = await newDeployTarget(t);
    const kept = { pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' } as const;
    const reported = [kept, { pluginId: 'not-selected', code: 'PLUGIN_INSTALL_FAILED' }, { pluginId: PLUGIN, code: 'SOMETHING_ELSE' }, kept] as PluginWarning[];
    script.prepare.set(target.agentId, () => ({ ready: true, warnings: reported }));
    const rev = await admit(t, target);
    const status = await waitTerminal(t, target, rev.id);
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
    expect(status.warnings).toEqual([kept]);
    expect((await workRow(t, rev.id))!.result).toEqual({ warnings: [kept] });
  });

  it('[K-11] saved warnings describe that completed deploy; a later deploy with other warnings does not change them', async () => {
    const target = await newDeployTarget(t, { plugins: { [PLUGIN]: { enabled: true }, 'openclaw:webhooks': { enabled: true } } });
    const first: PluginWarning = { pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' };
    const second: PluginWarning = { pluginId: 'openclaw:webhooks', code: 'PLUGIN_AUTH_REQUIRED' };
    script.prepare.set(target.agentId, (revision) => ({ ready: true, warnings: [revision.revision === 1 ? first : second] }));
    const rev1 = await admit(t, target);
    expect((await waitTerminal(t, target, rev1.id)).warnings).toEqual([first]);
    const rev2 = await admit(t, target);
    expect(await waitTerminal(t, target, rev2.id)).toMatchObject({ state: 'succeeded', active: true, warnings: [second] });
    // The earlier deploy keeps its own outcome and warnings; it is simply no longer active.
    expect(await deploymentStatus(t, target, rev1.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: false, warnings: [first] });
    // The predecessor was retired once the successor was active.
    expect(effectsOf(effects, rev1.id, 'retire')).toHaveLength(1);
  });

  it('[K-1][K-10] a runtime failure on every attempt leaves the previous pointer, spends every attempt and fails', async () => {
    const { target, first } = await activeTarget();
    script.prepare.set(target.agentId, (revision) =>
      revision.revision === 2 ? { runtimeFailure: { code: 'GATEWAY_START_FAILED', message: 'The gateway exited during startup.' } } : {},
    );
    const rev2 = await admit(t, target);
    const status = await waitTerminal(t, target, rev2.id);
    expect(status).toMatchObject({ state: 'failed', reasonCode: 'GATEWAY_START_FAILED', attempts: 3, active: false, nextAttemptAt: null, warnings: [] });
    // The driver's own text never reaches stored status: the message is fixed, naming the code.
    expect(status.error).toEqual({ code: 'GATEWAY_START_FAILED', message: 'The runtime did not start (GATEWAY_START_FAILED).' });
    expect(effectsOf(effects, rev2.id, 'prepare')).toHaveLength(3);
    expect(effectsOf(effects, rev2.id, 'activate')).toHaveLength(0);
    // The pointer never moved, and the previous revision was neither retired nor stopped: it was
    // restored after each failed attempt (bring-back-active.test.ts).
    expect(await activeRevisionId(t, target)).toBe(first.id);
    expect(effectsOf(effects, first.id).map((e) => e.op)).toEqual(['prepare', 'activate', 'restore', 'restore', 'restore']);
    expect(await deploymentStatus(t, target, first.id)).toMatchObject({ state: 'succeeded', active: true });
  });

  it('[K-1] an unexpected compute error spends an attempt (WORKER_ERROR) and the next attempt can still succeed', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, (_revision, call) => (call === 1 ? { crash: true } : {}));
    const rev = await admit(t, target);
    expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', attempts: 2 });
    expect(effectsOf(effects, rev.id, 'prepare').map((e) => e.outcome)).toEqual(['failed', 'ok']);
  });

  it('[O-4][K-2][K-4][K-6] revision selection precedes cutover: after the pointer commit an activation failure keeps the candidate pointer (FINALIZATION_INCOMPLETE), then ALREADY_ACTIVE', async () => {
    const { target, first } = await activeTarget();
    script.failActivation.set(target.agentId, (revision, call) => revision.revision === 2 && call === 1);
    // The second attempt prepares slowly, so the in-between state can be observed.
    script.prepare.set(target.agentId, (revision, call) => (revision.revision === 2 && call === 2 ? { delayMs: 1_500 } : {}));
    const rev2 = await admit(t, target);

    const between = await waitFor(
      'the retried finalization',
      () => deploymentStatus(t, target, rev2.id),
      (s) => s.reasonCode === 'REVISION_FINALIZATION_INCOMPLETE' || (s.state !== 'running' && s.state !== 'queued'),
    );
    expect(between).toMatchObject({ state: 'running', reasonCode: 'REVISION_FINALIZATION_INCOMPLETE', active: true, error: null, warnings: [] });
    expect(between.lastAttempt).not.toBeNull();
    // [K-6] The candidate pointer is already set, yet the deployment is not succeeded: a pointer is not readiness.
    expect(await activeRevisionId(t, target)).toBe(rev2.id);

    const done = await waitTerminal(t, target, rev2.id);
    expect(done).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ALREADY_ACTIVE', attempts: 2, active: true, error: null });
    expect(effectsOf(effects, rev2.id, 'activate').map((e) => e.outcome)).toEqual(['failed', 'ok']);
    expect(await activeRevisionId(t, target)).toBe(rev2.id);
    // [K-4] No rollback: the previous revision stays stored and listed.
    const listed = await t.request({ method: 'GET', url: `${target.url}/revisions` });
    expect(listed.body.data.items.map((r: { id: string }) => r.id)).toEqual([rev2.id, first.id]);
    expect((await t.request({ method: 'GET', url: `${target.url}/revisions/${first.id}` })).body.data).toEqual(first);
  });

  it('[K-2] (DESIGN §8: activate → retire predecessors) a finalization completed on retry still retires the predecessor it replaced', async () => {
    const { target, first } = await activeTarget();
    script.failActivation.set(target.agentId, (revision, call) => revision.revision === 2 && call === 1);
    const rev2 = await admit(t, target);
    expect(await waitTerminal(t, target, rev2.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ALREADY_ACTIVE' });
    // The first attempt moved the pointer away from `first` but never got to retire it; the
    // attempt that finishes the finalization must, or the predecessor's runtime is left behind.
    expect(effectsOf(effects, first.id, 'retire').map((e) => e.outcome)).toEqual(['ok']);
  });
});
