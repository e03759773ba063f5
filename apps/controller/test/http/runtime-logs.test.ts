import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { admit, newDeployTarget, PLUGIN, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { grant, newPrincipal } from '../../../../test-support/world.ts';

/**
 * `GET …/deployments/:rev/runtime/logs` over a controller whose worker drives the local
 * ComputeDriver (with the stand-in runtime): deploys reach the runtime, its log is readable
 * through the API, bounded.
 */
describe('runtime logs through the API, local ComputeDriver', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  let revisionId: string;
  const logs = (url: string, key?: string) => t.request({ method: 'GET', url, ...(key ? { key } : {}) });
  const logsUrl = (rev: string, query = '') => `${target.url}/deployments/${rev}/runtime/logs${query}`;

  beforeAll(async () => {
    driver = standInLocalCompute(root);
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    target = await newDeployTarget(t, {
      plugins: { [PLUGIN]: { enabled: true }, browser: { enabled: true } },
      values: { standIn: { logLines: 150, failures: [{ pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' }] } },
    });
    revisionId = (await admit(t, target)).id;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('[W-1][K-8] a deploy succeeds once the runtime is ready, with the warnings its validated startup status reported', async () => {
    const status = await waitTerminal(t, target, revisionId);
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, warnings: [{ pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' }] });
    expect(await driver.describeRuntime({ namespaceId: target.ns, agentId: target.agentId }, revisionId)).toMatchObject({ running: true, phase: 'ready' });
  });

  it('answers the last 100 lines by default, no-store, and `tail` lines when asked', async () => {
    await waitTerminal(t, target, revisionId);
    const res = await logs(logsUrl(revisionId));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.data.lines).toHaveLength(100);
    expect(res.body.data.truncated).toBe(true);
    expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
    const two = await logs(logsUrl(revisionId, '?tail=2'));
    expect(two.body.data).toEqual({ lines: res.body.data.lines.slice(-2), truncated: true });
    expect((await logs(logsUrl(revisionId, '?tail=1000'))).body.data.lines.some((l: string) => l.includes('stand-in ready'))).toBe(true);
  });

  it("[P-6] a second revision replaces the first (Recreate); the first revision's log stays readable", async () => {
    await waitTerminal(t, target, revisionId);
    const second = (await admit(t, target)).id;
    expect((await waitTerminal(t, target, second)).state).toBe('succeeded');
    await waitFor(
      'the first runtime to be retired',
      () => driver.describeRuntime({ namespaceId: target.ns, agentId: target.agentId }, revisionId),
      (d) => !d.running,
      10_000,
    );
    const old = await logs(logsUrl(revisionId, '?tail=1000'));
    expect(old.body.data.lines.at(-1)).toMatch(/runtime stopped/);
    expect((await logs(logsUrl(second, '?tail=1'))).status).toBe(200);
  });

  it('refuses a tail outside 1..1000, not a number, or an unknown parameter (400)', async () => {
    for (const q of ['?tail=0', '?tail=1001', '?tail=abc', '?tail=-1', '?lines=3']) {
      const res = await logs(logsUrl(revisionId, q));
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it("[V-2] needs Agent read on that exact Agent; an unknown revision or another Agent's is 404", async () => {
    const other = await newDeployTarget(t);
    expect((await logs(`${other.url}/deployments/${revisionId}/runtime/logs`)).status).toBe(404);
    expect((await logs(logsUrl('rev_00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    const reader = await newPrincipal(t);
    expect((await logs(logsUrl(revisionId), reader.key)).status).toBe(404);
    await grant(t, reader.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: target.ns, resource: { kind: 'agent', id: target.agentId } });
    expect((await logs(logsUrl(revisionId), reader.key)).status).toBe(200);
  });

  it('answers 501 NOT_IMPLEMENTED when the ComputeDriver keeps no logs (404 still first for an unknown revision)', async () => {
    const { readLogs: _none, ...withoutLogs } = createScriptedCompute({ id: 'local' });
    const deps = t.controller.deps;
    deps.compute = withoutLogs;
    try {
      const res = await logs(logsUrl(revisionId));
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('NOT_IMPLEMENTED');
      expect((await logs(logsUrl('rev_00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    } finally {
      deps.compute = driver;
    }
  });
});
