import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { admit, newDeployTarget, sleep, waitFor, waitTerminal, workRow } from '../../../../test-support/deploy-helpers.ts';

// The worker polls only every minute here: a deploy claimed within seconds was woken by its
// enqueue's NOTIFY (without it, this claim would wait out the minute).
describe('an idle worker wakes on enqueue', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController({ worker: { leaseMs: 5_000, pollMs: 60_000, convergencePollMs: 50 } });
  });
  afterAll(async () => t?.close());

  it('claims a deploy promptly although its poll interval is a minute, every time', async () => {
    for (let round = 0; round < 2; round++) {
      const target = await newDeployTarget(t);
      await sleep(300); // the worker has found nothing and is asleep
      const started = Date.now();
      const revision = await admit(t, target);
      await waitFor(
        'the claim',
        () => workRow(t, revision.id),
        (row) => row?.state !== 'queued',
        10_000,
        5,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await waitTerminal(t, target, revision.id, 10_000)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
    }
  });
});
