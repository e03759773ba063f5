import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeRevisionId, admit, newDeployTarget, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';

// Through the HTTP API with the real local ComputeDriver, the real runtime, OpenClaw and a real
// npm registry: a plugin the CLI rejects, and a plugin whose integrity does not match the catalog.
// Two attempts per deploy: a failing runtime start is retried once, not four times (minutes each).
const REJECTED = FIXTURE_PLUGINS.rejected;
const TAMPERED = FIXTURE_PLUGINS.tampered;
const DEPLOY_MS = 600_000;

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E({ work: { maxAttempts: 2 } });
});

afterAll(async () => {
  await e2e?.close();
});

async function deployAndSettle(target: DeployTarget): Promise<{ id: string; status: any }> {
  const rev = await admit(e2e.t, target);
  const started = Date.now();
  const status = await waitTerminal(e2e.t, target, rev.id, DEPLOY_MS);
  console.log(`deploy ${Object.keys(rev.plugins).join(', ')}: ${status.state} after ${Date.now() - started} ms`);
  return { id: rev.id, status };
}

describe('plugin install failures on the local ComputeDriver, through the HTTP API', () => {
  it('[W-1][N-9][K-8][K-11] the CLI rejects a plugin: the deploy succeeds with a PLUGIN_INSTALL_FAILED warning and its tools are not allowed', async () => {
    const target = await newDeployTarget(e2e.t, {
      plugins: { 'llm-task': { enabled: true }, [REJECTED.package]: { enabled: true } },
      values: { tools: { deny: ['exec'] } },
    });
    const { id, status } = await deployAndSettle(target);
    expect(status).toMatchObject({
      state: 'succeeded',
      reasonCode: 'REVISION_ACTIVATED',
      active: true,
      error: null,
      warnings: [{ pluginId: REJECTED.package, code: 'PLUGIN_INSTALL_FAILED' }],
    });
    expect(await activeRevisionId(e2e.t, target)).toBe(id);
    // The rejected selection is disabled and ungranted; the rest of the policy stands.
    expect(await e2e.configGet(target, id, 'tools')).toEqual({ alsoAllow: ['llm-task'], deny: ['exec'] });
    const plugins = (await e2e.configGet(target, id, 'plugins')) as { entries: Record<string, { enabled?: boolean }> };
    expect(plugins.entries[REJECTED.pluginId]?.enabled).toBe(false);
    expect(plugins.entries['llm-task']?.enabled).toBe(true);
    expect(await e2e.compute().describeRuntime({ namespaceId: target.ns, agentId: target.agentId }, id)).toMatchObject({ running: true, phase: 'ready' });
  });

  it('[N-7][N-8][W-2][K-1][K-4] an integrity mismatch fails the deploy with the runtime failure code and the Agent keeps its previous revision', async () => {
    const target = await newDeployTarget(e2e.t, { plugins: { 'llm-task': { enabled: true } }, values: {} });
    const good = await deployAndSettle(target);
    // First the error, so that a failure names its code.
    expect({ error: good.status.error, reasonCode: good.status.reasonCode }).toEqual({ error: null, reasonCode: 'REVISION_ACTIVATED' });
    expect(good.status).toMatchObject({ state: 'succeeded', active: true });
    expect(await activeRevisionId(e2e.t, target)).toBe(good.id);

    const patched = await e2e.t.request({ method: 'PATCH', url: target.url, body: { plugins: { [TAMPERED.package]: { enabled: true } } } });
    expect(patched.status).toBe(200);
    const bad = await deployAndSettle(target);
    expect(bad.status).toMatchObject({
      state: 'failed',
      active: false,
      attempts: 2,
      warnings: [],
      error: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'The runtime did not start (PLUGIN_VERIFICATION_FAILED).' },
    });
    // The pointer never moved; the failed runtime was stopped and its gateway never started.
    expect(await activeRevisionId(e2e.t, target)).toBe(good.id);
    const agent = { namespaceId: target.ns, agentId: target.agentId };
    expect(await e2e.compute().describeRuntime(agent, bad.id)).toMatchObject({ running: false });
    const events = e2e.events(target, bad.id);
    expect(events.filter((e) => e.event === 'plugin.verify.failed')).toContainEqual(expect.objectContaining({ selectionKey: TAMPERED.package, checks: ['integrity'] }));
    expect(events.filter((e) => e.event === 'gateway.started')).toEqual([]);
    const logs = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${bad.id}/runtime/logs?tail=20` });
    expect(logs.status).toBe(200);
    expect(logs.body.data.lines.length).toBeGreaterThan(0);
  });
});
