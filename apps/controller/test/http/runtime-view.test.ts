import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { admit, deploymentStatus, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

const CANARY = 'canary-live-view-secret-value';

/**
 * `GET …/deployments/:rev/runtime`: the live runtime view, read from the local ComputeDriver
 * (stand-in runtime) at request time, next to the recorded deployment status.
 */
describe('the live runtime view through the API, local ComputeDriver', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  let revisionId: string;
  const view = (rev: string, key?: string) => t.request({ method: 'GET', url: `${target.url}/deployments/${rev}/runtime`, ...(key ? { key } : {}) });

  beforeAll(async () => {
    driver = standInLocalCompute(root, {
      backoff: { baseMs: 100, capMs: 400, resetAfterMs: 60_000 },
    });
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    target = await newDeployTarget(t);
    const secret = await adminCreate(t, `/namespaces/${target.ns}/secrets`, { name: uniqueName('s'), value: CANARY });
    await grant(t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: target.ns, resource: { kind: 'secret', id: secret.id } });
    const patched = await t.request({
      method: 'PATCH',
      url: `/namespaces/${target.ns}/configurations/${target.cfg}`,
      body: { secretBindings: { PROVIDER_API_KEY: { secretId: secret.id } } },
    });
    expect(patched.status, patched.raw).toBe(200);
    revisionId = (await admit(t, target)).id;
    expect((await waitTerminal(t, target, revisionId)).state).toBe('succeeded');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('[K-11] answers what runs now: running, ready, its startup, the delivered variable names (never a value), what its gateway loaded, no-store', async () => {
    const res = await view(revisionId);
    expect(res.status, res.raw).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.data).toMatchObject({ revisionId, running: true, phase: 'ready', ready: true, restarts: 0, deliveredSecrets: ['PROVIDER_API_KEY'], lastFailureCode: null });
    // What the runtime read back from its gateway, as its trusted ready status published it.
    expect(res.body.data.loaded).toEqual({ plugins: [{ id: 'stand-in', tools: ['stand_in_echo'] }], coreTools: ['read'], scheduledJobs: [] });
    expect(res.body.data.startupId).toEqual(expect.any(String));
    expect(Date.parse(res.body.data.observedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(res.raw).not.toContain(CANARY);
  });

  it('[K-11] is read live, unlike the recorded deployment status: a crashed runtime shows here while the deploy stays succeeded', async () => {
    const before = (await view(revisionId)).body.data;
    process.kill(
      -Number(
        (await driver.readLogs({ namespaceId: target.ns, agentId: target.agentId }, revisionId, { tail: 1000 })).lines
          .map((l) => /runtime started \(pid (\d+)\)/.exec(l)?.[1])
          .filter(Boolean)
          .at(-1),
      ),
      'SIGKILL',
    );
    const after = await waitFor(
      'a new startup',
      async () => (await view(revisionId)).body.data,
      (d) => d.ready && d.startupId !== before.startupId,
      15_000,
    );
    expect(after.restarts).toBeGreaterThanOrEqual(1);
    expect(await deploymentStatus(t, target, revisionId)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
  });

  it("[V-2] needs Agent read; the variable names need configuration:read on the revision's Configuration", async () => {
    const reader = await newPrincipal(t);
    expect((await view(revisionId, reader.key)).status).toBe(404);
    await grant(t, reader.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: target.ns, resource: { kind: 'agent', id: target.agentId } });
    const agentOnly = await view(revisionId, reader.key);
    expect(agentOnly.status).toBe(200);
    expect(agentOnly.body.data).toMatchObject({ running: true, deliveredSecrets: null });
    expect(agentOnly.raw).not.toContain('PROVIDER_API_KEY');
    await grant(t, reader.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: target.ns, resource: { kind: 'configuration', id: target.cfg } });
    expect((await view(revisionId, reader.key)).body.data.deliveredSecrets).toEqual(['PROVIDER_API_KEY']);
  });

  it('an unknown revision is 404; a ComputeDriver that cannot describe runtimes is 501', async () => {
    expect((await view('rev_00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const { describeRuntime: _none, ...blind } = { ...createScriptedCompute({ id: 'local' }), describeRuntime: undefined };
    const deps = t.controller.deps;
    deps.compute = blind;
    try {
      const res = await view(revisionId);
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('NOT_IMPLEMENTED');
    } finally {
      deps.compute = driver;
    }
  });
});
