import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkQueue } from '../../src/state/work-queue/index.ts';
import { admit, newDeployTarget, runningAndStoppedAgents, scriptedByAgent, sleep, waitFor, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/**
 * The worker's level-triggered check (worker/ensure-active.ts): with nobody deploying, every
 * `ensureActiveMs` each running Agent's active revision is asked of the compute target again
 * (`restoreRevision`, which starts it only when nothing of the Agent runs: proven per target in the
 * drivers' own files). Against the scripted target: who is asked, when, and that work under way is
 * never interleaved.
 */
describe('the active revisions are checked periodically', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  const ENSURE_MS = 150;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50, ensureActiveMs: ENSURE_MS } });
  });
  afterAll(async () => t?.close());

  const restoresOf = (agentId: string) => effects.filter((e) => e.op === 'restore' && e.agentId === agentId);
  const ensureItem = async (agentId: string) =>
    (
      await t.database.query<{ n: number; state: string; reason_code: string | null; revision_id: string | null; checked: string | null; actor_id: string }>(
        `SELECT count(*) OVER ()::int AS n, state, reason_code, revision_id, result->>'revisionId' AS checked, actor_id
           FROM work_items WHERE agent_id = $1 AND kind = 'ensure_active'`,
        [agentId],
      )
    ).rows;

  it("[K-7][S-2] a running Agent's active revision is asked of its target again and again with nobody deploying, from one re-armed work item; a stopped Agent's is not", async () => {
    const { running, one, stopped } = await runningAndStoppedAgents(t, effects);
    const stoppedBefore = restoresOf(stopped.agentId).length;

    const asked = await waitFor(
      'three checks',
      async () => restoresOf(running.agentId),
      (found) => found.length >= 3,
      30_000,
    );
    expect(asked.map((e) => [e.revisionId, e.cause])).toEqual(asked.map(() => [one.id, 'check']));
    // One row per Agent, armed again after each check: no history grows with time.
    const rows = await waitFor(
      'the last check to finish',
      () => ensureItem(running.agentId),
      (found) => found[0]?.state === 'succeeded',
    );
    expect(rows).toEqual([{ n: 1, state: 'succeeded', reason_code: 'ACTIVE_REVISION_ENSURED', revision_id: null, checked: one.id, actor_id: 'occ:worker' }]);
    await sleep(4 * ENSURE_MS);
    expect(restoresOf(stopped.agentId)).toHaveLength(stoppedBefore);
  });

  it("[P-6][K-3] no check acts while work of the Agent is under way: none is armed then, and one that falls between a waiting candidate's looks does nothing", async () => {
    const target = await newDeployTarget(t);
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded' });
    await waitFor(
      'a first check',
      async () => restoresOf(target.agentId),
      (found) => found.length >= 1,
      30_000,
    );
    // The candidate stays pending for 20 × ENSURE_MS, convergence wait after convergence wait.
    const pendingUntil = Date.now() + 20 * ENSURE_MS;
    script.prepare.set(target.agentId, () => (Date.now() < pendingUntil ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {}));
    const two = await admit(t, target);
    // A check already armed and due while the deploy waits between two looks (its random moment
    // fell there): made due now, it is claimed before the deploy's next look, and does nothing.
    await waitFor(
      'the first look at revision 2',
      async () => effects.some((e) => e.op === 'prepare' && e.revisionId === two.id),
      (seen) => seen,
    );
    // Arming now (as any worker's next period would) leaves this Agent's lane alone.
    await waitFor(
      'its last check to end',
      () => ensureItem(target.agentId),
      (found) => found[0]?.state === 'succeeded',
    );
    await createWorkQueue(t.database).armEnsureActive(script.compute.id, 0);
    expect((await ensureItem(target.agentId))[0]?.state).toBe('succeeded');
    await t.database.query(
      `UPDATE work_items SET state = 'queued', available_at = now(), attempts = 0, reason_code = NULL, result = NULL, claimed_by = NULL
        WHERE agent_id = $1 AND kind = 'ensure_active' AND state <> 'claimed'`,
      [target.agentId],
    );
    const skipped = await waitFor(
      'the check to end',
      () => ensureItem(target.agentId),
      (found) => found[0]?.state === 'succeeded',
    );
    expect(skipped[0]?.reason_code).toBe('ENSURE_NOT_NEEDED');
    expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'succeeded', active: true });
    // From the candidate's first prepare to its activation, the Agent's effects are the deploy's alone
    // (a check armed before the deploy was admitted may run before it, in the lane's order).
    const mine = effects.filter((e) => e.agentId === target.agentId);
    const first = mine.findIndex((e) => e.op === 'prepare' && e.revisionId === two.id);
    const activated = mine.findIndex((e) => e.op === 'activate' && e.revisionId === two.id);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(activated).toBeGreaterThan(first);
    const during = mine.slice(first, activated + 1);
    expect(during.filter((e) => e.op === 'prepare').length).toBeGreaterThan(3);
    expect(during.filter((e) => e.op === 'restore')).toEqual([]);
    // Afterwards the checks ask for the new active revision.
    const next = await waitFor(
      'a check of revision 2',
      async () => restoresOf(target.agentId).filter((e) => e.revisionId === two.id),
      (found) => found.length >= 1,
      30_000,
    );
    expect(next[0]).toMatchObject({ cause: 'check' });
  });
});
