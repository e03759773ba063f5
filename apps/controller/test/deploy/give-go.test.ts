import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeRevisionId, admit, scriptedByAgent, waitTerminal, withActiveRevision, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/**
 * A candidate prepared beside the serving revision holds until it is given the go; when is decided
 * once, by the worker (worker/give-go.ts), for every target that holds (`local`, `docker`); each
 * ComputeDriver only knows how (`proceedRevision`: stop the others, then the go).
 */
describe('the worker gives the go to a candidate prepared beside the serving revision', () => {
  const CONVERGENCE_MS = 3_000;
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 100 }, work: { convergenceMs: CONVERGENCE_MS } });
  });
  afterAll(async () => t?.close());

  /** The Agent's effects in order, as `op:revision number`, the last look's prepare marked. */
  const timeline = (target: DeployTarget, one: string) =>
    effects.filter((e) => e.agentId === target.agentId).map((e) => `${e.op}:${e.revisionId === one ? 1 : 2}${e.lastLook ? ':last look' : ''}`);

  it('[P-6][K-3] a prepare that answers awaitsGo is followed by the go, and the next look finds the candidate ready: it activates and its predecessor retires', async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision, call) => (revision.revision === 2 && call === 1 ? { ready: false, awaitsGo: true } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id)).toMatchObject({ state: 'succeeded', active: true });
    expect(timeline(target, one.id)).toEqual(['prepare:1', 'activate:1', 'prepare:2', 'proceed:2', 'prepare:2', 'activate:2', 'retire:1']);
    expect(await activeRevisionId(t, target)).toBe(two.id);
  });

  it("[P-6][K-1][K-4] a candidate still awaiting its go at the deploy's last look gets none: it is stopped, the active revision comes back, the deploy fails and the pointer never moves", async () => {
    const { target, one } = await withActiveRevision(t);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 2 ? { ready: false, awaitsGo: true } : {}));
    const two = await admit(t, target);
    expect(await waitTerminal(t, target, two.id, CONVERGENCE_MS + 15_000)).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED' });
    const mine = timeline(target, one.id);
    const last = mine.indexOf('prepare:2:last look');
    expect(last).toBeGreaterThan(0);
    // Every earlier look gave the go; the last one gives none: the candidate stops and the active revision comes back.
    const earlier = mine.slice(2, last);
    expect(earlier.length).toBeGreaterThanOrEqual(2);
    expect(earlier).toEqual(earlier.map((_, i) => (i % 2 === 0 ? 'prepare:2' : 'proceed:2')));
    expect(mine.slice(last + 1)).toEqual(['stop:2', 'restore:1']);
    expect(await activeRevisionId(t, target)).toBe(one.id);
  });
});
