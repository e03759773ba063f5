import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalComputeDriver, type LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { probeStandInGateway, processAlive, standInLaunch, tempRoot, STAND_IN_CONFINEMENT } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

const CONVERGENCE_MS = 6_000;

/**
 * A redeploy whose runtime never serves fails at its convergence deadline; Recreate stopped the
 * serving revision for it. On its last look the worker stops the candidate and brings the active
 * revision back (worker/bring-back-active.ts, `abandonCandidate`): the Agent is not left dark
 * behind a runtime nothing will ever activate. Seen the way a user meets it: the deployment's
 * status and the live runtime view of both revisions.
 */
describe('a candidate still starting at the deadline, local ComputeDriver', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  const view = async (revisionId: string) => (await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data;

  beforeAll(async () => {
    driver = createLocalComputeDriver({
      confinement: STAND_IN_CONFINEMENT,
      rootDir: root,
      launch: standInLaunch,
      probeGateway: probeStandInGateway,
      readyWaitMs: 200,
      stopGraceMs: 500,
    });
    t = await startTestController({ compute: driver, work: { convergenceMs: CONVERGENCE_MS }, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 200 } });
    target = await newDeployTarget(t, { values: { standIn: {} } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('[K-1][K-4] is stopped on the last look, and the active revision serves again; the deploy fails CONVERGENCE_DEADLINE_EXCEEDED', async () => {
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded', active: true });

    const patched = await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { standIn: { gateway: 'never' } } } });
    expect(patched.status, patched.raw).toBe(200);
    const two = await admit(t, target);
    // Recreate: the serving revision stops for the candidate, which never serves.
    await waitFor(
      'the candidate to run',
      () => view(two.id),
      (v) => v.running === true,
    );
    expect(await view(one.id)).toMatchObject({ running: false });
    const logs = await driver.readLogs({ namespaceId: target.ns, agentId: target.agentId }, two.id, { tail: 1000 });
    const candidatePid = Number(logs.lines.map((l) => /runtime started \(pid (\d+)\)/.exec(l)?.[1]).find(Boolean));
    expect(processAlive(candidatePid)).toBe(true);

    expect(await waitTerminal(t, target, two.id, CONVERGENCE_MS + 20_000)).toMatchObject({ state: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED', active: false });
    expect(await view(two.id)).toMatchObject({ running: false, ready: false });
    expect(processAlive(candidatePid)).toBe(false);
    // Brought back without waiting for anything else: same revision, serving again.
    expect(
      await waitFor(
        'the active revision to serve again',
        () => view(one.id),
        (v) => v.ready === true,
        15_000,
      ),
    ).toMatchObject({ running: true, phase: 'ready' });
  });
});
