import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOVERNANCE_TOOLS } from '@occ/policy';
import { activeRevisionId, admit, newDeployTarget, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';

// Through the HTTP API with the real local ComputeDriver, the real runtime, OpenClaw and a real
// npm registry: a plugin the CLI rejects, beside a disabled one whose install the CLI writes into
// the operator's plugin lists (one deploy proves both; the runtime-level files no longer repeat it).
// A plugin whose integrity does not match the catalog is proven on the same path by
// agent-turn.test.ts (its failing candidate), so it costs no deploys here.
// Two attempts per deploy: a failing runtime start would be retried once, not four times (minutes each).
const REJECTED = FIXTURE_PLUGINS.rejected;
const GOOD = FIXTURE_PLUGINS.good;
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
  it('[W-1][N-5][N-6][N-9][K-8][K-11] the CLI rejects a plugin: the deploy succeeds with a PLUGIN_INSTALL_FAILED warning and its tools are not allowed; the CLI edits plugins.allow/deny without --no-enable and the runtime restores them', async () => {
    const target = await newDeployTarget(e2e.t, {
      plugins: {
        'llm-task': { enabled: true },
        [REJECTED.package]: { enabled: true },
        // Disabled, but installed all the same: its install is where the CLI touches the operator's lists.
        [GOOD.package]: { enabled: false },
      },
      values: { tools: { deny: ['exec'] }, plugins: { allow: [REJECTED.pluginId, 'memory-core', 'llm-task'], deny: [GOOD.pluginId] } },
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
    // Without --no-enable the CLI added the disabled plugin to plugins.allow and removed it from plugins.deny …
    const events = e2e.events(target, id);
    expect(events.filter((event) => event.event === 'plugin.install.unreachable')).toEqual([]);
    const [restore] = events.filter((event) => event.event === 'config.restore');
    expect(restore?.changedByCli).toEqual(expect.arrayContaining(['/plugins/allow', '/plugins/deny']));
    // … and the configuration OpenClaw reads has the operator's lists and the managed enablement again:
    // the rejected and the disabled selections are off and ungranted; the rest of the policy stands
    // (the ungranted governance tools denied after the operator's deny).
    expect(await e2e.configGet(target, id, 'tools')).toEqual({ alsoAllow: ['llm-task'], deny: ['exec', ...GOVERNANCE_TOOLS], fs: { workspaceOnly: true } });
    const plugins = (await e2e.configGet(target, id, 'plugins')) as { allow: string[]; deny: string[]; entries: Record<string, { enabled?: boolean }> };
    expect(plugins.allow).toEqual([REJECTED.pluginId, 'memory-core', 'llm-task']);
    expect(plugins.deny).toEqual([GOOD.pluginId]);
    expect(plugins.entries[REJECTED.pluginId]?.enabled).toBe(false);
    expect(plugins.entries[GOOD.pluginId]?.enabled).toBe(false);
    expect(plugins.entries['llm-task']?.enabled).toBe(true);
    expect(await e2e.compute().describeRuntime({ namespaceId: target.ns, agentId: target.agentId }, id)).toMatchObject({ running: true, phase: 'ready' });
  });
});
