import { GOVERNANCE_TOOLS } from '@occ/policy';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupFailure } from '../../src/failure.ts';
import { prepareRevision, type PreparedRevision } from '../../src/prepare.ts';
import { testManifest } from '../support/runtime-process.ts';
import { describeCall, loadRecording, materializePaths, replayCommands, type CliRecording, type ReplayedCommands } from '../support/recorded-commands.ts';
import { captureRuntimeLog, recordedCatalog, replayWorld } from '../support/replay-world.ts';
import { StartupProgress } from '../../src/progress.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';

// The runtime's step order on the pinned CLI's recorded answers (no processes): install →
// restore the translated config → registry refresh → uninstall what an earlier revision left →
// verify installs → verify the effective config.
const GOOD = { package: '@occ-fixtures/openclaw-good', pluginId: 'occ-fixture-good' };
const REJECTED = { package: '@occ-fixtures/openclaw-rejected', pluginId: 'occ-fixture-rejected' };
const TAMPERED = { package: '@occ-fixtures/openclaw-tampered', pluginId: 'occ-fixture-tampered' };
const FLAGS = { noEnable: false, acceptCapabilities: true };

let world: ReturnType<typeof replayWorld>;
let log: ReturnType<typeof captureRuntimeLog>;
beforeEach(() => {
  world = replayWorld();
  log = captureRuntimeLog();
});
afterEach(() => {
  log.restore();
  world.dispose();
});

/** prepareRevision with `main`'s selections and catalog, answered by the recordings (first one wins). */
async function prepare(
  main: CliRecording,
  overrides: CliRecording[] = [],
  progress = new StartupProgress(),
  installHelp: string | null = null,
): Promise<{ replay: ReplayedCommands; result: PreparedRevision | StartupFailure }> {
  materializePaths([main], world);
  const replay = replayCommands([...overrides, main], world);
  const manifest = testManifest(main.selections, main.configuration);
  try {
    const result = await prepareRevision({
      cli: replay,
      catalog: recordedCatalog(main),
      manifest,
      configPath: world.configPath,
      stateDir: world.stateDir,
      installTimeoutMs: 90_000,
      signal: new AbortController().signal,
      progress,
      installHelp,
    });
    return { replay, result };
  } catch (error) {
    if (error instanceof StartupFailure) return { replay, result: error };
    throw error;
  }
}

const steps = () => log.named('startup.step').map((event) => event.step);
const config = () =>
  JSON.parse(readFileSync(world.configPath, 'utf8')) as {
    plugins?: { allow?: string[]; deny?: string[]; entries?: Record<string, { enabled?: boolean }> };
    tools?: Record<string, unknown>;
  };

describe('prepareRevision on recorded CLI answers', () => {
  it('[N-5][N-6][N-7][N-9][W-1] installs in order, restores the translation over the config the CLI rewrote, refreshes, verifies: a rejection is a warning', async () => {
    const progress = new StartupProgress();
    const { replay, result } = await prepare(loadRecording('fresh-start'), [], progress);
    expect(replay.unanswered).toEqual([]);
    expect(replay.calls.slice(0, 5)).toEqual([
      'installHelp',
      describeCall('install', [GOOD.package, '1.0.0', FLAGS]),
      describeCall('install', [REJECTED.package, '1.0.0', FLAGS]),
      'refreshRegistry',
      `inspect ${GOOD.pluginId}`,
    ]);
    // The sections are read back last, in the same process as the refresh and the inspection.
    expect(replay.calls.slice(5).sort()).toEqual(['configGet plugins', 'configGet tools']);
    expect(replay.readProcesses).toBe(1);
    expect(steps()).toEqual(['plan', 'write-config', 'detect-install-flags', 'install', 'restore-config', 'registry-refresh', 'verify-installs', 'verify-config']);
    // The same steps, typed, for the startup status: each install by its selection key and result, in order.
    const typed = progress.list();
    expect(typed.every((entry) => !Number.isNaN(Date.parse(entry.at)))).toBe(true);
    expect(typed.map(({ at: _at, ...entry }) => entry)).toEqual([
      { step: 'plan' },
      { step: 'write-config' },
      { step: 'detect-install-flags' },
      { step: 'install', pluginId: `openclaw:${GOOD.package}`, result: 'done' },
      { step: 'install', pluginId: REJECTED.package, result: 'rejected' },
      { step: 'install' },
      { step: 'restore-config' },
      { step: 'registry-refresh' },
      { step: 'verify-installs' },
      { step: 'verify-config' },
    ]);
    // The plugins that may give the agent tools and declare jobs: the enabled selections that installed (not the rejected one).
    expect(result).toEqual({
      plugins: ['file-transfer', `openclaw:${GOOD.package}`],
      failures: [{ pluginId: REJECTED.package, code: 'PLUGIN_INSTALL_FAILED' }],
      readBack: { toolPlugins: new Set(['file-transfer', GOOD.pluginId]), declaredJobs: new Set(['file-transfer:', `${GOOD.pluginId}:`]) },
      warnedPlugins: new Set([REJECTED.pluginId]),
    });
    expect(log.named('plugin.install.rejected')).toEqual([expect.objectContaining({ selectionKey: REJECTED.package, exitCode: 1, warning: 'PLUGIN_INSTALL_FAILED' })]);
    // The installs rewrote the config file (recorded: only its /meta here, the entries already
    // matched); the restore wrote the translation back over it.
    expect(log.named('config.restore')[0]?.changedByCli).toEqual(['/meta']);
    const restored = config();
    // The operator's deny, the policy's disabled tools, then the governance tools no Configuration granted.
    expect(restored.tools).toEqual({
      profile: 'coding',
      alsoAllow: ['file-transfer', GOOD.pluginId],
      deny: ['exec', 'file_write', 'fixture_write', ...GOVERNANCE_TOOLS],
      // The runtime's quiet default: the file tools stay in the workspace.
      fs: { workspaceOnly: true },
    });
    expect(restored.plugins?.entries?.[REJECTED.pluginId]?.enabled).toBe(false);
    expect(restored.plugins?.entries?.[GOOD.pluginId]?.enabled).toBe(true);
  });

  it('with the install help set-up recorded for the pinned CLI, no CLI process is spent on the install flags; the flags are the same', async () => {
    const recorded = pinnedToolchain().installHelp;
    expect(recorded, 'npm ci records `plugins install --help` beside the pinned CLI (scripts/install-openclaw.mjs)').not.toBeNull();
    const { replay } = await prepare(loadRecording('fresh-start'), [], new StartupProgress(), recorded);
    expect(replay.calls).not.toContain('installHelp');
    expect(replay.calls.slice(0, 2)).toEqual([describeCall('install', [GOOD.package, '1.0.0', FLAGS]), describeCall('install', [REJECTED.package, '1.0.0', FLAGS])]);
    expect(log.named('plugin.install.flags')).toEqual([expect.objectContaining({ ...FLAGS, from: 'set-up' })]);
  });
  it('[N-1][P-7] a later revision uninstalls what an earlier one left, restores the config again and refreshes once more before verifying', async () => {
    const { replay, result } = await prepare(loadRecording('later-revision-bundled-only'));
    expect(replay.unanswered).toEqual([]);
    // The first read-back (one process) saw the earlier revision's plugin: uninstalled, then everything read again.
    expect(replay.calls).toEqual([
      'refreshRegistry',
      'configGet plugins',
      'configGet tools',
      describeCall('uninstall', [[GOOD.pluginId]]),
      'refreshRegistry',
      'configGet plugins',
      'configGet tools',
    ]);
    expect(replay.readProcesses).toBe(2);
    expect(steps()).toEqual(['plan', 'write-config', 'restore-config', 'registry-refresh', 'uninstall-stale', 'restore-config', 'registry-refresh', 'verify-config']);
    expect(result).toEqual({
      plugins: ['llm-task'],
      failures: [],
      readBack: { toolPlugins: new Set(['llm-task']), declaredJobs: new Set(['llm-task:']) },
      warnedPlugins: new Set(),
    });
    expect(log.named('plugin.uninstall.stale')).toEqual([expect.objectContaining({ pluginIds: [GOOD.pluginId] })]);
  });

  it('[N-5][N-7][N-8] an integrity mismatch fails after the operator’s allow/deny lists were restored', async () => {
    const { replay, result } = await prepare(loadRecording('integrity-mismatch'));
    expect(replay.unanswered).toEqual([]);
    expect(result).toBeInstanceOf(StartupFailure);
    expect(result).toMatchObject({ code: 'PLUGIN_VERIFICATION_FAILED', message: expect.stringContaining('integrity') });
    expect(replay.calls.slice(0, 4)).toEqual([
      'installHelp',
      describeCall('install', [TAMPERED.package, '1.0.0', FLAGS]),
      describeCall('install', [GOOD.package, '1.0.0', FLAGS]),
      'refreshRegistry',
    ]);
    // Read in the same process as the refresh; the inspections are judged first, so the config reads never count.
    expect(replay.calls.slice(4)).toEqual([`inspect ${TAMPERED.pluginId}`, `inspect ${GOOD.pluginId}`, 'configGet plugins', 'configGet tools']);
    expect(replay.readProcesses).toBe(1);
    expect(log.named('config.verify.done')).toEqual([]);
    expect(log.named('config.restore')[0]?.changedByCli).toEqual(expect.arrayContaining(['/plugins/allow', '/plugins/deny']));
    expect(config().plugins).toMatchObject({ allow: [TAMPERED.pluginId, 'memory-core'], deny: [GOOD.pluginId] });
  });

  it('[W-2] an unreachable source stops the startup at that install: no later install, refresh or verification', async () => {
    const fresh = loadRecording('fresh-start');
    for (const [scenario, reason] of [
      ['source-down', 'ECONNREFUSED'],
      ['source-untrusted-tls', 'SELF_SIGNED_CERT_IN_CHAIN'],
      ['source-down-deadline', 'DEADLINE_EXCEEDED'],
    ] as const) {
      const { replay, result } = await prepare(fresh, [loadRecording(scenario)]);
      expect(result).toMatchObject({ code: 'PLUGIN_SOURCE_UNREACHABLE', message: `Installing openclaw:${GOOD.package} could not use its package source (${reason}).` });
      expect(replay.calls).toEqual(['installHelp', describeCall('install', [GOOD.package, '1.0.0', FLAGS])]);
    }
    expect(log.named('plugin.install.unreachable').map((event) => event.reason)).toEqual(['ECONNREFUSED', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEADLINE_EXCEEDED']);
    expect(log.named('plugin.install.rejected')).toEqual([]);
    // The reason is npm's code; the registry URL npm printed is not in the runtime's own lines.
    expect(JSON.stringify(log.events())).not.toMatch(/127\.0\.0\.1:|https?:\/\//);
  });
});
