import { GOVERNANCE_TOOLS, OFFICIAL_EXTERNAL_PLUGIN_IDS } from '@occ/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test-support/deploy-helpers.ts';
import { FIXTURE_PLUGINS, useFixtureRegistry, type FixtureRegistry } from '../../../test-support/npm-registry.ts';
import { probeGatewayReady } from '../src/gateway-probe.ts';
import { startRuntime, type LogEvent, type RunningRuntime } from './support/runtime-process.ts';

// The real runtime process, the real pinned OpenClaw CLI and gateway, and a real npm registry
// (verdaccio) serving the fixture plugins. Each runtime start costs minutes on a busy machine,
// so each test proves several things about one start. An integrity mismatch is proven on the same
// real path by agent-turn.test.ts (its failing candidate), the CLI's edits of the operator's
// plugin lists and their restore by the controller's e2e/openclaw-plugin-failures.test.ts (beside
// its rejected package), and a later revision that installs nothing and removes the stale install
// (then a gateway that dies ends the runtime with code 1) by e2e/openclaw-lifecycle.test.ts.
const GOOD = FIXTURE_PLUGINS.good;
const REJECTED = FIXTURE_PLUGINS.rejected;

let registry: FixtureRegistry;
const started: RunningRuntime[] = [];

beforeAll(async () => {
  registry = await useFixtureRegistry();
});

afterAll(async () => {
  for (const runtime of started.reverse()) await runtime.dispose();
  await registry?.close();
});

async function start(input: Parameters<typeof startRuntime>[0]): Promise<RunningRuntime> {
  const runtime = await startRuntime({ catalog: registry.catalog, registryUrl: registry.url, ...input });
  started.push(runtime);
  return runtime;
}

function stepTimes(events: LogEvent[]): Record<string, unknown> {
  return Object.fromEntries(events.filter((event) => event.event === 'startup.step' || event.event === 'startup.ready').map((event) => [event.step ?? 'ready (total)', event.ms]));
}

function named(events: LogEvent[], name: string): LogEvent[] {
  return events.filter((event) => event.event === name);
}

describe('the OpenClaw runtime with the real CLI and a local npm registry', () => {
  it('[N-1][N-2][N-3][N-4][N-5][N-6][N-7][N-9][W-1][S-1][K-7] a bundled and an npm plugin with disabled tools and an operator deny: ready with exactly the admitted policy; the rejected install is a warning without a grant; the gateway serves and stops on SIGTERM', async () => {
    const runtime = await start({
      selections: {
        'file-transfer': { enabled: true, tools: { file_write: { enabled: false } } },
        [`openclaw:${GOOD.package}`]: {
          enabled: true,
          toolDefaults: { enabled: true, approval: 'none' },
          tools: { fixture_write: { enabled: false }, fixture_clock: { approval: 'provider_default' } },
        },
        [REJECTED.package]: { enabled: true },
      },
      configuration: { tools: { profile: 'coding', deny: ['exec'] } },
      // OCC's usual variable name, which OpenClaw reads as Meta's provider key: it made every gateway install Meta's plugin by itself.
      secrets: { MODEL_API_KEY: 'not-a-real-key' },
    });

    const status = await runtime.settled(900_000);
    console.log('runtime start with 2 installs + 1 bundled plugin, ms per step:', stepTimes(runtime.events()));
    expect(status).toEqual({
      revisionId: runtime.revisionId,
      startupId: runtime.endpoint().startupId,
      phase: 'ready',
      plugins: ['file-transfer', `openclaw:${GOOD.package}`],
      failures: [{ pluginId: REJECTED.package, code: 'PLUGIN_INSTALL_FAILED' }],
      gatewayPort: expect.any(Number),
      error: null,
      loaded: expect.any(Object),
      progress: expect.any(Array),
    });
    // Its steps, typed in the status (what deployment events are made of): each install by selection key and result, the gateway last.
    const progress = status.progress!.map(({ at: _at, ...entry }) => entry);
    expect(progress.filter((entry) => entry.pluginId !== undefined)).toEqual([
      { step: 'install', pluginId: `openclaw:${GOOD.package}`, result: 'done' },
      { step: 'install', pluginId: REJECTED.package, result: 'rejected' },
    ]);
    expect(progress.map((entry) => entry.step).filter((step) => step !== 'install')).toEqual([
      'plan',
      'write-config',
      'detect-install-flags',
      'restore-config',
      'registry-refresh',
      'verify-installs',
      'verify-config',
      'gateway',
    ]);
    // What the serving gateway said it runs: tools only from the selected plugins; providers and
    // device plugins without tools listed too; OpenClaw's core tools before policy; no job.
    const loaded = status.loaded!;
    expect(loaded.plugins.filter((plugin) => plugin.tools.length > 0)).toEqual([
      { id: 'file-transfer', tools: expect.arrayContaining(['file_fetch']) },
      { id: GOOD.pluginId, tools: expect.arrayContaining(['fixture_echo', 'fixture_write']) },
    ]);
    expect(loaded.plugins.map((plugin) => plugin.id)).toEqual(expect.arrayContaining(['openai', 'anthropic']));
    expect(loaded.plugins.map((plugin) => plugin.id)).not.toContain(REJECTED.pluginId);
    expect(loaded.coreTools).toEqual(expect.arrayContaining(['read', 'exec', 'plugins']));
    expect(loaded.scheduledJobs).toEqual([]);
    // The rejected install left OpenClaw a pending upgrade for that plugin: degraded, but only by the warned one.
    expect(named(runtime.events(), 'gateway.degraded').every((event) => Array.isArray(event.unexplained) && event.unexplained.length === 0)).toBe(true);

    // The install argv: --pin --force, no --no-enable (2026.9.5 lacks it), consent for third-party packages.
    // The flags from the help `npm ci` recorded for the pinned CLI: no `plugins install --help` process.
    expect(named(runtime.events(), 'plugin.install.flags')).toEqual([expect.objectContaining({ noEnable: false, acceptCapabilities: true, from: 'set-up' })]);
    expect(named(runtime.events(), 'plugin.install.rejected')).toEqual([expect.objectContaining({ selectionKey: REJECTED.package, exitCode: 1 })]);

    // The effective configuration, read back with the CLI: grants into alsoAllow (no operator allow),
    // profile and operator deny kept, disabled tools denied, the rejected plugin disabled and ungranted.
    expect(await runtime.configGet('tools')).toEqual({
      profile: 'coding',
      alsoAllow: ['file-transfer', GOOD.pluginId],
      // …then the governance tools no Configuration granted (docs/security.md).
      deny: ['exec', 'file_write', 'fixture_write', ...GOVERNANCE_TOOLS],
      // The runtime's quiet default: the file tools stay in the workspace (docs/security.md).
      fs: { workspaceOnly: true },
    });
    const plugins = (await runtime.configGet('plugins')) as { entries: Record<string, { enabled?: boolean }> };
    expect(plugins.entries['file-transfer']?.enabled).toBe(true);
    expect(plugins.entries[GOOD.pluginId]?.enabled).toBe(true);
    expect(plugins.entries[REJECTED.pluginId]?.enabled).toBe(false);
    const managed = Object.entries(plugins.entries)
      .filter(([id, entry]) => entry.enabled !== undefined && !OFFICIAL_EXTERNAL_PLUGIN_IDS.includes(id))
      .map(([id]) => id)
      .sort();
    expect(managed).toEqual(['file-transfer', GOOD.pluginId, REJECTED.pluginId].sort());
    // Every official plugin the gateway could install by itself is off (Meta's provider: MODEL_API_KEY).
    for (const pluginId of OFFICIAL_EXTERNAL_PLUGIN_IDS) expect(plugins.entries[pluginId]?.enabled, pluginId).toBe(false);
    expect(runtime.output()).not.toMatch(/missing configured plugin/);

    // The gateway's own readiness, then it has loaded the npm plugin.
    const port = status.gatewayPort!;
    await waitFor(
      'gateway /readyz',
      () => probeGatewayReady(port, runtime.gatewayToken, AbortSignal.timeout(10_000)),
      (ready) => ready,
      600_000,
      2_000,
    );
    expect(runtime.output()).toMatch(new RegExp(`http server listening \\([0-9]+ plugins: [^)]*\\b${GOOD.pluginId}\\b`));
    expect(runtime.output()).not.toMatch(new RegExp(`http server listening \\([0-9]+ plugins: [^)]*\\b${REJECTED.pluginId}\\b`));

    // SIGTERM stops the gateway first, then the runtime exits 0; no token or secret in the log.
    expect(await runtime.stop()).toEqual({ code: 0, signal: null });
    expect(named(runtime.events(), 'gateway.stopped')).toHaveLength(1);
    expect(await probeGatewayReady(port, runtime.gatewayToken, AbortSignal.timeout(10_000))).toBe(false);
    expect(runtime.output()).not.toContain(runtime.gatewayToken);
    expect(runtime.output()).not.toContain(runtime.statusToken);
  });
});
