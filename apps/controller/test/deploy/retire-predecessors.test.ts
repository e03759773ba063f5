import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, effectsOf, newDeployTarget, scriptedByAgent, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

// Activation retires the predecessors that may still run — handed to compute and not retired
// since — not every revision in the Agent's history.
describe('activation retires only predecessors that still run', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 }, work: { maxAttempts: 3 } });
  });
  afterAll(async () => t?.close());

  it('each revision is retired once, by the activation of its successor', async () => {
    const target = await newDeployTarget(t);
    const revisions = [];
    for (let i = 0; i < 4; i++) {
      const rev = await admit(t, target);
      expect(await waitTerminal(t, target, rev.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
      revisions.push(rev);
    }
    const [r1, r2, r3, r4] = revisions.map((r) => r.id) as [string, string, string, string];
    // The fourth activation retired the third only, not the whole history again.
    const activatedR4 = effectsOf(effects, r4, 'activate')[0]!;
    const retiredSince = effects.filter((e) => e.op === 'retire' && e.startedAt >= activatedR4.startedAt);
    expect(retiredSince.map((e) => e.revisionId)).toEqual([r3]);
    for (const id of [r1, r2, r3]) expect(effectsOf(effects, id, 'retire').map((e) => e.outcome)).toEqual(['ok']);
    expect(effectsOf(effects, r4, 'retire')).toEqual([]);
    const { rows } = await t.database.query<{ id: string; retired: boolean }>(
      `SELECT r.id, x.revision_id IS NOT NULL AS retired FROM agent_revisions r LEFT JOIN revision_retirements x ON x.revision_id = r.id
        WHERE r.agent_id = $1 ORDER BY r.revision_number`,
      [target.agentId],
    );
    expect(rows).toEqual([
      { id: r1, retired: true },
      { id: r2, retired: true },
      { id: r3, retired: true },
      { id: r4, retired: false },
    ]);
  });

  it('a predecessor whose retire was not recorded (a crash in between) is retired again by the next activation', async () => {
    const target = await newDeployTarget(t);
    const first = await admit(t, target);
    await waitTerminal(t, target, first.id);
    // No retire is recorded for `first` (as after a crash between the retire and its record).
    const second = await admit(t, target);
    await waitTerminal(t, target, second.id);
    await t.database.query('DELETE FROM revision_retirements WHERE revision_id = $1', [first.id]);
    const third = await admit(t, target);
    expect(await waitTerminal(t, target, third.id)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
    const activatedThird = effectsOf(effects, third.id, 'activate')[0]!;
    const retiredSince = effects.filter((e) => e.op === 'retire' && e.startedAt >= activatedThird.startedAt).map((e) => e.revisionId);
    expect(retiredSince.sort()).toEqual([first.id, second.id].sort());
  });
});
