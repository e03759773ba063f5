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
  type DeployTarget,
} from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

describe('superseded revisions, stop and Agent deletion', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, work: { maxAttempts: 3 } });
  });
  afterAll(async () => t?.close());

  async function withWorker<T>(fn: () => Promise<T>): Promise<T> {
    const worker = startExtraWorker(t, script.compute);
    try {
      return await fn();
    } finally {
      await worker.stop();
    }
  }
  const stop = (target: DeployTarget) => t.request({ method: 'POST', url: `${target.url}/stop` });
  const stopItems = async (agentId: string) =>
    (
      await t.database.query<{ state: string; reason_code: string | null; result: any }>(
        `SELECT state, reason_code, result FROM work_items WHERE agent_id = $1 AND kind = 'stop_agent'`,
        [agentId],
      )
    ).rows;
  const itemState = async (revisionId: string) =>
    (
      await t.database.query<{ state: string; reason_code: string | null; result: unknown }>(`SELECT state, reason_code, result FROM work_items WHERE revision_id = $1`, [
        revisionId,
      ])
    ).rows[0];

  it('an older revision not yet claimed ends superseded (REVISION_SUPERSEDED, not an error) without any compute call; the pointer names the newer one', async () => {
    const target = await newDeployTarget(t);
    const rev1 = await admit(t, target);
    const rev2 = await admit(t, target);
    const [s1, s2] = await withWorker(async () => [await waitTerminal(t, target, rev1.id), await waitTerminal(t, target, rev2.id)]);
    expect(s1).toMatchObject({ state: 'superseded', reasonCode: 'REVISION_SUPERSEDED', error: null, nextAttemptAt: null, active: false, warnings: [] });
    // Stored as cancelled: the work was overtaken, not done.
    expect(await itemState(rev1.id)).toEqual({ state: 'cancelled', reason_code: 'REVISION_SUPERSEDED', result: null });
    expect(s2).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true });
    // Never prepared nor activated (retiring it later, as a predecessor of rev2, is harmless and idempotent).
    expect(effectsOf(effects, rev1.id).filter((e) => e.op !== 'retire')).toEqual([]);
    expect(await activeRevisionId(t, target)).toBe(rev2.id);
  });

  it('a slow revision already in flight when a newer one is deployed never ends as the active one', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 1 ? { delayMs: 1_500 } : {}));
    const rev1 = await admit(t, target);
    await withWorker(async () => {
      await waitFor(
        'the slow prepare',
        async () => effectsOf(effects, rev1.id, 'prepare').length,
        (n) => n > 0,
      );
      const rev2 = await admit(t, target);
      expect((await waitTerminal(t, target, rev1.id)).state).toMatch(/^(succeeded|superseded)$/);
      expect(await waitTerminal(t, target, rev2.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true });
      expect(await activeRevisionId(t, target)).toBe(rev2.id);
      // Whatever rev1 did, nothing of it ran after rev2's activation.
      const rev2Activated = effectsOf(effects, rev2.id, 'activate').find((e) => e.outcome === 'ok')!;
      expect(effectsOf(effects, rev1.id).filter((e) => e.op !== 'retire' && e.startedAt > rev2Activated.startedAt)).toEqual([]);
      expect(await deploymentStatus(t, target, rev1.id)).toMatchObject({ active: false });
    });
  });

  it('[K-1][K-4] an older revision an earlier attempt left starting is retired by its own item once a newer one overtakes it, and the active revision comes back at once, even when the newer one fails', async () => {
    const target = await newDeployTarget(t);
    // rev3 fails for good: no activation retires rev2 as its predecessor, so only rev2's own item can.
    script.prepare.set(target.agentId, (revision) =>
      revision.revision === 2
        ? { ready: false, pendingReason: 'RUNTIME_STARTING' }
        : revision.revision === 3
          ? { runtimeFailure: { code: 'PLUGIN_POLICY_INVALID', message: 'x' } }
          : {},
    );
    await withWorker(async () => {
      const rev1 = await admit(t, target);
      expect(await waitTerminal(t, target, rev1.id)).toMatchObject({ state: 'succeeded', active: true });
      const rev2 = await admit(t, target);
      await waitFor(
        'a convergence wait of the older revision',
        async () => effectsOf(effects, rev2.id, 'prepare').length,
        (n) => n >= 2,
      );
      const rev3 = await admit(t, target);
      expect(await waitTerminal(t, target, rev2.id)).toMatchObject({ state: 'superseded', reasonCode: 'REVISION_SUPERSEDED', active: false });
      expect(await waitTerminal(t, target, rev3.id)).toMatchObject({ state: 'failed', reasonCode: 'PLUGIN_POLICY_INVALID' });
      expect(effectsOf(effects, rev2.id, 'retire').map((e) => e.outcome)).toEqual(['ok']);
      expect(effectsOf(effects, rev2.id, 'activate')).toEqual([]);
      // Right after the retirement, before anything else of the Agent: the active revision runs again.
      const mine = effects.filter((e) => e.agentId === target.agentId);
      const retired = mine.findIndex((e) => e.op === 'retire' && e.revisionId === rev2.id);
      expect(mine[retired + 1]).toMatchObject({ op: 'restore', revisionId: rev1.id, outcome: 'ok' });
      expect(await activeRevisionId(t, target)).toBe(rev1.id);
    });
  });

  it('an Agent stopped during its first deploy: the candidate an earlier attempt left starting is stopped by its own item (the stop has no active revision to stop)', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ ready: false, pendingReason: 'RUNTIME_STARTING' }));
    const rev = await admit(t, target);
    await withWorker(async () => {
      await waitFor(
        'a convergence wait',
        async () => effectsOf(effects, rev.id, 'prepare').length,
        (n) => n >= 2,
      );
      expect((await stop(target)).status).toBe(202);
      expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'stopped', reasonCode: 'REVISION_STOPPED' });
      await waitFor(
        'the stop',
        () => stopItems(target.agentId),
        (items) => items.every((i) => i.state === 'succeeded'),
      );
    });
    expect(effectsOf(effects, rev.id, 'stop').map((e) => e.outcome)).toEqual(['ok']);
    expect(await script.compute.describeRuntime!({ namespaceId: target.ns, agentId: target.agentId }, rev.id)).toMatchObject({ running: false });
  });

  it('stop while a slow prepare runs wins: 202, the revision ends stopped (REVISION_STOPPED, not an error), the pointer stays null', async () => {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ delayMs: 1_500 }));
    const rev = await admit(t, target);
    await withWorker(async () => {
      await waitFor(
        'the slow prepare',
        async () => effectsOf(effects, rev.id, 'prepare').length,
        (n) => n > 0,
      );
      const stopped = await stop(target);
      expect(stopped.status, stopped.raw).toBe(202);
      expect(stopped.body.data).toMatchObject({ agentId: target.agentId, desiredState: 'stopped', workId: expect.stringMatching(/^wrk_/) });
      const status = await waitTerminal(t, target, rev.id);
      expect(status).toMatchObject({ state: 'stopped', reasonCode: 'REVISION_STOPPED', error: null, active: false });
      expect(await itemState(rev.id)).toEqual({ state: 'cancelled', reason_code: 'REVISION_STOPPED', result: null });
      await waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows.every((r) => r.state === 'succeeded'),
      );
    });
    // The prepared candidate was never activated, and its prepared runtime was stopped.
    expect(effectsOf(effects, rev.id, 'activate')).toEqual([]);
    expect(effectsOf(effects, rev.id, 'stop').map((e) => e.outcome)).toContain('ok');
    expect(await activeRevisionId(t, target)).toBeNull();
    expect((await t.request({ method: 'GET', url: target.url })).body.data.desiredState).toBe('stopped');
    const audits = await t.database.query(`SELECT 1 FROM audit_events WHERE action = 'agents.stop' AND resource_id = $1`, [target.agentId]);
    expect(audits.rows).toHaveLength(1);
  });

  it('stop of an active Agent stops its runtime and clears the pointer', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    await withWorker(async () => {
      await waitTerminal(t, target, rev.id);
      expect(await activeRevisionId(t, target)).toBe(rev.id);
      expect((await stop(target)).status).toBe(202);
      const [item] = await waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows.length === 1 && rows[0]!.state === 'succeeded',
      );
      expect(item).toMatchObject({ reason_code: 'AGENT_STOPPED', result: { stoppedRevisionId: rev.id } });
    });
    expect(effectsOf(effects, rev.id, 'stop').map((e) => e.outcome)).toEqual(['ok']);
    expect(await activeRevisionId(t, target)).toBeNull();
    // The stopped revision is still a succeeded deploy, just no longer active.
    expect(await deploymentStatus(t, target, rev.id)).toMatchObject({ state: 'succeeded', active: false });
  });

  it('a stop overtaken by a new deploy before it ran ends cancelled (STOP_SUPERSEDED), and the new revision becomes active', async () => {
    const target = await newDeployTarget(t);
    const rev1 = await admit(t, target);
    await withWorker(() => waitTerminal(t, target, rev1.id));
    // No worker now: the stop waits in the queue while a new deploy wants the Agent running again.
    expect((await stop(target)).status).toBe(202);
    const rev2 = await admit(t, target);
    await withWorker(async () => {
      expect(await waitTerminal(t, target, rev2.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true });
      const [item] = await waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows.length === 1 && rows[0]!.state !== 'queued' && rows[0]!.state !== 'claimed',
      );
      expect(item).toEqual({ state: 'cancelled', reason_code: 'STOP_SUPERSEDED', result: null });
    });
    expect(effectsOf(effects, rev1.id, 'stop')).toEqual([]);
  });

  const removeItems = async (agentId: string) =>
    (
      await t.database.query<{ id: string; state: string; reason_code: string | null; attempts: number; result: any }>(
        `SELECT id, state, reason_code, attempts, result FROM work_items WHERE agent_id = $1 AND kind = 'remove_agent'`,
        [agentId],
      )
    ).rows;
  const auditOf = async (action: string, agentId: string) =>
    (
      await t.database.query<{ actor_id: string | null; outcome: string; details: any }>(
        `SELECT actor_id, outcome, details FROM audit_events WHERE action = $1 AND resource_id = $2 ORDER BY seq`,
        [action, agentId],
      )
    ).rows;

  it('deleting a running Agent → 409; after the stop has completed → 204, its revisions and work are gone, and the worker removes what compute holds for it (audited)', async () => {
    const target = await newDeployTarget(t);
    const rev1 = await admit(t, target);
    const rev2 = await admit(t, target);
    await withWorker(async () => {
      await waitTerminal(t, target, rev2.id);
      const running = await t.request({ method: 'DELETE', url: target.url });
      expect(running.status, running.raw).toBe(409);
      expect(running.body.error.code).toBe('RESOURCE_CONFLICT');
      expect((await stop(target)).status).toBe(202);
      await waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows.length === 1 && rows[0]!.state === 'succeeded',
      );
    });
    // No worker now: the deletion itself is done at once; the compute removal waits in the queue.
    const deleted = await t.request({ method: 'DELETE', url: target.url });
    expect(deleted.status, deleted.raw).toBe(204);
    expect((await t.database.query('SELECT 1 FROM agent_revisions WHERE agent_id = $1', [target.agentId])).rows).toHaveLength(0);
    const left = (await t.database.query<{ kind: string; state: string }>('SELECT kind, state FROM work_items WHERE agent_id = $1', [target.agentId])).rows;
    expect(left).toEqual([{ kind: 'remove_agent', state: 'queued' }]);
    expect((await t.request({ method: 'GET', url: `${target.url}/revisions/${rev1.id}` })).status).toBe(404);
    expect((await t.request({ method: 'GET', url: `${target.url}/deployments/${rev2.id}` })).status).toBe(404);
    const principal = await t.database.query('SELECT 1 FROM principals WHERE id = $1', [target.servicePrincipalId]);
    expect(principal.rows).toHaveLength(0);
    const [removal] = await removeItems(target.agentId);
    const [deletion] = await auditOf('agents.delete', target.agentId);
    expect(deletion?.details).toMatchObject({ removedRevisions: 2, computeRemovalWorkId: removal!.id });

    // rev1 was superseded before any compute call: only rev2 ever ran.
    const [done] = await withWorker(() =>
      waitFor(
        'the removal',
        () => removeItems(target.agentId),
        (rows) => rows[0]?.state === 'succeeded',
      ),
    );
    expect(done).toMatchObject({ reason_code: 'AGENT_REMOVED', result: { computeDriverId: 'scripted', removed: [{ kind: 'runtime', name: rev2.id }] } });
    expect(effects.filter((e) => e.agentId === target.agentId && e.op === 'remove').map((e) => e.outcome)).toEqual(['ok']);
    const [audited] = await auditOf('agents.compute_removed', target.agentId);
    // The deleting principal is the removal's actor, through the worker.
    expect(audited).toEqual({
      actor_id: deletion!.actor_id,
      outcome: 'success',
      details: { workId: removal!.id, computeDriverId: 'scripted', removed: [{ kind: 'runtime', name: rev2.id }] },
    });
  });

  it('deleting an Agent never deployed queues no compute removal; a removal that keeps failing is retried, then its failure is audited', async () => {
    const never = await newDeployTarget(t);
    expect((await t.request({ method: 'DELETE', url: never.url })).status).toBe(204);
    expect(await removeItems(never.agentId)).toEqual([]);
    expect((await auditOf('agents.delete', never.agentId))[0]?.details).toMatchObject({ removedRevisions: 0, computeRemovalWorkId: null });

    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    script.failRemoval.set(target.agentId, () => true);
    await withWorker(async () => {
      await waitTerminal(t, target, rev.id);
      expect((await stop(target)).status).toBe(202);
      await waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows[0]?.state === 'succeeded',
      );
      expect((await t.request({ method: 'DELETE', url: target.url })).status).toBe(204);
      const [failed] = await waitFor(
        'the removal to fail for good',
        () => removeItems(target.agentId),
        (rows) => rows[0]?.state === 'failed',
      );
      expect(failed).toMatchObject({ reason_code: 'WORKER_ERROR', attempts: 3 });
    });
    expect(effects.filter((e) => e.agentId === target.agentId && e.op === 'remove').map((e) => e.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(await auditOf('agents.compute_removed', target.agentId)).toEqual([
      {
        actor_id: (await auditOf('agents.delete', target.agentId))[0]!.actor_id,
        outcome: 'failure',
        details: { workId: expect.stringMatching(/^wrk_/), computeDriverId: 'scripted', attempts: 3 },
      },
    ]);
  });

  it('deleting a stopped Agent whose stop has not run yet is refused (the pointer is still set)', async () => {
    const target = await newDeployTarget(t);
    const rev = await admit(t, target);
    await withWorker(() => waitTerminal(t, target, rev.id));
    // No worker now: the stop is admitted but not carried out.
    expect((await stop(target)).status).toBe(202);
    const refused = await t.request({ method: 'DELETE', url: target.url });
    expect(refused.status, refused.raw).toBe(409);
    expect(await activeRevisionId(t, target)).toBe(rev.id);
    await withWorker(() =>
      waitFor(
        'the stop work',
        () => stopItems(target.agentId),
        (rows) => rows[0]?.state === 'succeeded',
      ),
    );
    expect((await t.request({ method: 'DELETE', url: target.url })).status).toBe(204);
  });
});
