import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { processAlive, tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

// Long enough for the candidate to be seen running before its last look on a loaded machine.
const CONVERGENCE_MS = 10_000;

/**
 * What runs after a candidate does not make it is decided once, by the worker
 * (worker/give-up-candidate.ts); the local driver only knows how. Seen the way a user meets it:
 * the deployments' status and the live runtime view of both revisions.
 */
describe('a redeploy whose candidate does not make it, local ComputeDriver', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  const view = async (revisionId: string) => (await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data;

  beforeAll(async () => {
    driver = standInLocalCompute(root);
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 200 } });
  });
  beforeEach(async () => {
    target = await newDeployTarget(t, { values: { standIn: {} } });
    // A deadline no loaded machine reaches, unless a test shortens it for its own redeploy.
    deadline(15 * 60_000);
  });
  const deadline = (convergenceMs: number) => {
    t.controller.deps.work = { ...t.controller.deps.work, convergenceMs };
  };
  const redeployWith = async (standIn: Record<string, unknown>) => {
    const patched = await t.request({ method: 'PATCH', url: `/namespaces/${target.ns}/configurations/${target.cfg}`, body: { values: { standIn } } });
    expect(patched.status, patched.raw).toBe(200);
    return admit(t, target);
  };
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('[K-1][K-4] one still starting at the deadline is stopped on the last look, and the active revision serves again; the deploy fails CONVERGENCE_DEADLINE_EXCEEDED', async () => {
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded', active: true });
    // Its runtime never serves.
    deadline(CONVERGENCE_MS);
    const two = await redeployWith({ gateway: 'never' });
    // Recreate: the serving revision stops for the candidate, which never serves.
    await waitFor(
      'the candidate to run',
      () => view(two.id),
      (v) => v.running === true,
    );
    expect(await view(one.id)).toMatchObject({ running: false });
    const logs = await driver.readLogs({ namespaceId: target.ns, agentId: target.agentId }, two.id, { tail: 1000 });
    const candidatePid = Number(logs.lines.map((l) => /runtime started \(pid (\d+)\)/.exec(l)?.[1]).find(Boolean));
    expect(Number.isInteger(candidatePid)).toBe(true);
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

  it('[K-4][K-5] one whose runtime exits before it serves: the worker, woken by the exit, brings the active revision back before it tries the candidate again, which then activates', async () => {
    const one = await admit(t, target);
    expect(await waitTerminal(t, target, one.id)).toMatchObject({ state: 'succeeded', active: true });
    // Its first start exits while it prepares; its second serves.
    const two = await redeployWith({ preparingMs: 1_500, exitAfterMs: 300, exitOnce: true });
    expect(await waitTerminal(t, target, two.id, 60_000)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', attempts: 2, active: true });
    const agent = { namespaceId: target.ns, agentId: target.agentId };
    const oneLog = (await driver.readLogs(agent, one.id, { tail: 1000 })).lines;
    // Started, stopped for the candidate, brought back after its exit, stopped again for its second attempt.
    expect(oneLog.filter((l) => /runtime started \(pid \d+\)/.test(l))).toHaveLength(2);
    expect(oneLog.some((l) => l.includes(`brought back after candidate ${two.id} failed`))).toBe(true);
    expect(await view(one.id)).toMatchObject({ running: false });
    expect(await view(two.id)).toMatchObject({ running: true, ready: true });
  });
});
