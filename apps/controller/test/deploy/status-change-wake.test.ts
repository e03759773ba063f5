import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRef, ComputeContext } from '../../src/core/ports/compute-driver.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { admit, newDeployTarget, sleep, waitFor, waitTerminal, workRow } from '../../../../test-support/deploy-helpers.ts';

// The convergence poll is a minute here: a deploy that completes within seconds of its runtime
// turning ready learned of it through the driver's awaitStatusChange (the runtime's long-poll),
// not by waiting the minute out.
describe('a converging deploy completes when its runtime changes, not at the next poll', () => {
  let t: TestController;
  let ready = false;
  let announce: () => void = () => {};
  const watched: string[] = [];
  const compute = Object.assign(createScriptedCompute({ prepare: () => ({ ready, pendingReason: 'RUNTIME_STARTING' }) }), {
    awaitStatusChange: (agent: AgentRef, revisionId: string, { signal }: ComputeContext) =>
      new Promise<void>((resolve, reject) => {
        watched.push(`${agent.agentId}/${revisionId}`);
        announce = resolve;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  });
  beforeAll(async () => {
    t = await startTestController({ compute, worker: { leaseMs: 5_000, pollMs: 60_000, convergencePollMs: 60_000 } });
  });
  afterAll(async () => t?.close());

  it('pending → deferred for a minute; the status change ends the wait and the revision activates at once', async () => {
    const target = await newDeployTarget(t);
    const revision = await admit(t, target);
    await waitFor(
      'the convergence wait',
      () => workRow(t, revision.id),
      (row) => row?.state === 'queued' && row.reason_code === 'RUNTIME_STARTING',
      10_000,
      10,
    );
    expect(watched).toEqual([`${target.agentId}/${revision.id}`]);
    await sleep(200);
    expect((await workRow(t, revision.id))?.state).toBe('queued');
    ready = true;
    const changedAt = Date.now();
    announce();
    expect(await waitTerminal(t, target, revision.id, 10_000)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
    console.log(`activated ${Date.now() - changedAt} ms after the status change (the convergence poll: 60 000 ms)`);
  });
});
