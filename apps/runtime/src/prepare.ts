import type { DeploymentStepName, PluginWarning, RuntimeManifest } from '@occ/contracts';
import {
  configurationChosenPlugins,
  normalizeNativeName,
  OpenClawPolicyError,
  translateOpenClawPolicy,
  type OpenClawCatalog,
  type OpenClawTranslation,
  type UnselectedPluginsMode,
} from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { policyFailureDetail } from './failure-detail.ts';
import { detectInstallFlags } from './install-flags.ts';
import { installPlugins } from './install-plugins.ts';
import { logEvent } from './log.ts';
import { StartupProgress } from './progress.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';
import { readBack } from './read-back.ts';
import { uninstallStale } from './stale-installs.ts';
import { changedPointers, readRevisionConfig, withRuntimeSettings, writeRevisionConfig } from './revision-config.ts';
import { declaredJobsAskedFor, type ReadBackRules } from './gateway-readback.ts';

export interface PrepareInput {
  cli: OpenClawCommands;
  catalog: OpenClawCatalog;
  manifest: RuntimeManifest;
  /** The revision-private OpenClaw configuration file. */
  configPath: string;
  /** The Agent's OpenClaw state (OPENCLAW_STATE_DIR): where OpenClaw's own log goes (withRuntimeSettings). */
  stateDir: string;
  /** The deadline of one `plugins install` (RuntimeEnvironment.installTimeoutMs). */
  installTimeoutMs: number;
  /** Bundled tool plugins nobody selected (RuntimeEnvironment.unselectedPlugins); default `disable`. */
  unselectedPlugins?: UnselectedPluginsMode;
  signal: AbortSignal;
  /** Where the steps are reported (the runtime's status); a fresh one (the log only) when absent. */
  progress?: StartupProgress;
  /** The pinned CLI's `plugins install --help` as set-up recorded it (PinnedToolchain.installHelp); null: the CLI is asked. */
  installHelp?: string | null;
  /**
   * Awaited before the first step that changes what a running gateway of an earlier revision uses
   * (removing the plugins it installed): the driver's go (ProceedGate). False: stopping.
   */
  beforeStateChanges?: () => Promise<boolean>;
}

/** What a prepared revision publishes: enabled, verified selection keys and the disabled ones' warnings. */
export interface PreparedRevision {
  plugins: string[];
  failures: PluginWarning[];
  /** What the serving gateway may run (readBackGateway); null: not read back. */
  readBack: ReadBackRules | null;
  /** OpenClaw plugin ids of the selections whose install failed (already a warning): the gateway's startup warnings about them add nothing. */
  warnedPlugins: ReadonlySet<string>;
}

/** Any CLI command but `plugins install` (whose deadline is the runtime's setting). */
const COMMAND_TIMEOUT_MS = 120_000;

/** The one translator (packages/policy); a violation or conflict is a policy failure, before any install. */
function translate(input: PrepareInput, failures: ReadonlySet<string>): OpenClawTranslation {
  try {
    return translateOpenClawPolicy({
      catalog: input.catalog,
      selections: input.manifest.plugins.selections,
      failures,
      baseConfig: input.manifest.configuration.values,
      unselectedPlugins: input.unselectedPlugins,
      governance: true,
    });
  } catch (error) {
    if (!(error instanceof OpenClawPolicyError)) throw error;
    logEvent('policy.invalid', { violations: error.violations.map((found) => `${found.code} ${found.path || '/'}`) });
    throw new StartupFailure('PLUGIN_POLICY_INVALID', 'The plugin selections do not fit the pinned runtime’s catalog or the Configuration.', policyFailureDetail(error.violations));
  }
}

/**
 * Steps 1–5 of the runtime (README.md): plan and conflicts → revision config → installs →
 * policy with the confirmed rejections (config rewritten) → registry refresh (and removal of
 * plugins an earlier revision left installed) → native inspection → effective configuration.
 * Throws StartupFailure for anything that must keep the revision unready.
 */
export async function prepareRevision(input: PrepareInput): Promise<PreparedRevision> {
  try {
    return await prepareSteps(input);
  } finally {
    // The prepare's one OpenClaw process (openclaw-session.ts) is gone before anything else of OpenClaw runs.
    await input.cli.endSession();
  }
}

async function prepareSteps(input: PrepareInput): Promise<PreparedRevision> {
  const { cli, signal } = input;
  const progress = input.progress ?? new StartupProgress();
  const step = async <T>(name: DeploymentStepName, run: () => Promise<T> | T): Promise<T> => {
    const started = Date.now();
    const result = await run();
    progress.stepDone(name, { ms: Date.now() - started });
    return result;
  };
  const initial = await step('plan', () => translate(input, new Set()));
  const withSettings = (config: Record<string, unknown>) => withRuntimeSettings(config, input.stateDir);
  await step('write-config', () => writeRevisionConfig(input.configPath, withSettings(initial.config)));
  const rows = initial.plan.installs;
  let failures = new Set<string>();
  if (rows.length > 0) {
    const flags = await step('detect-install-flags', () => detectInstallFlags(cli, COMMAND_TIMEOUT_MS, input.installHelp ?? null));
    failures = await step('install', () => installPlugins(cli, rows, flags, { timeoutMs: input.installTimeoutMs, signal }, progress));
  }
  const final = translate(input, failures);
  const installed = rows.filter((row) => !failures.has(row.selectionKey));
  let written = withSettings(initial.config);
  const restore = () => {
    // Without --no-enable the CLI edits enablement and plugins.allow/deny (uninstall does too); the translation is what counts.
    const left = readRevisionConfig(input.configPath);
    logEvent('config.restore', { changedByCli: left === null ? ['(unreadable)'] : changedPointers(written, left) });
    written = withSettings(final.config);
    writeRevisionConfig(input.configPath, written);
  };
  await step('restore-config', restore);
  const commandOptions = { timeoutMs: COMMAND_TIMEOUT_MS, signal };
  // The refresh, inspections and config reads in one OpenClaw process (read-back.ts).
  let read = await readBack(cli, installed, final.overlay, progress, commandOptions);
  const admitted = new Set(installed.map((row) => row.pluginId));
  const stale = read.recorded.filter((pluginId) => !admitted.has(pluginId));
  if (stale.length > 0) {
    // The prepare's OpenClaw process stays open (idle) while a held candidate waits for the go: the removal and the
    // read-back after it are all that stands between the old gateway's stop and the new one's start
    // (docs/deployments.md, "A redeploy prepares beside the serving revision").
    if (input.beforeStateChanges && !(await input.beforeStateChanges())) throw new StartupFailure('RUNTIME_STARTUP_FAILED', 'The runtime stopped before it was told to proceed.');
    // Plugins an earlier revision installed: removed, then everything read again (the first reads described the state before).
    await step('uninstall-stale', () => uninstallStale(cli, stale, commandOptions));
    await step('restore-config', restore);
    read = await readBack(cli, installed, final.overlay, progress, commandOptions);
    if (read.recorded.some((pluginId) => !admitted.has(pluginId))) {
      throw new StartupFailure('PLUGIN_INSTALL_ERROR', 'Plugins no longer selected are still installed after uninstalling them.');
    }
  }
  read.verify();
  const toolPlugins = new Set([
    ...final.plan.plugins.filter((planned) => planned.selection.enabled && !failures.has(planned.selectionKey)).map((planned) => normalizeNativeName(planned.pluginId)),
    ...configurationChosenPlugins(input.manifest.configuration.values),
  ]);
  return {
    plugins: final.plan.plugins.filter((planned) => planned.selection.enabled && !failures.has(planned.selectionKey)).map((planned) => planned.selectionKey),
    failures: [...failures].map((pluginId) => ({ pluginId, code: 'PLUGIN_INSTALL_FAILED' as const })),
    readBack: { toolPlugins, declaredJobs: declaredJobsAskedFor(written, toolPlugins) },
    warnedPlugins: new Set(final.plan.plugins.filter((planned) => failures.has(planned.selectionKey)).map((planned) => normalizeNativeName(planned.pluginId))),
  };
}
