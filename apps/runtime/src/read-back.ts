import type { OpenClawConfig, OpenClawInstallRow } from '@occ/policy';
import { checkAdmittedPolicy, configReads } from './effective-config.ts';
import type { ReadCommand } from './openclaw-batch.ts';
import type { CommandOptions, OpenClawCommands } from './openclaw-commands.ts';
import type { StartupProgress } from './progress.ts';
import { installRecordIds } from './registry-refresh.ts';
import { verifyInstalls } from './verify-installs.ts';

/** One read-back of a prepare: the plugins with an install record, and the checks of what was read. */
export interface ReadBack {
  /** Every plugin id with an install record in the Agent's state (the refresh's answer). */
  recorded: string[];
  /** Native inspection of every installed row, then the effective configuration; throws StartupFailure. */
  verify(): void;
}

/**
 * The registry refresh, every installed plugin's inspection and every config section the overlay
 * constrains, in ONE OpenClaw process (openclaw-batch.mjs: one module load instead of one per
 * command). The refresh is judged at once (its records decide whether stale plugins must go);
 * the rest when `verify` is called, against the state this process read.
 */
export async function readBack(
  cli: OpenClawCommands,
  installed: readonly OpenClawInstallRow[],
  overlay: OpenClawConfig,
  progress: StartupProgress,
  options: CommandOptions,
): Promise<ReadBack> {
  const inspections: ReadCommand[] = installed.map((row) => ({ command: 'inspect', pluginId: row.pluginId }));
  const reads = await cli.readInOneProcess([{ command: 'refreshRegistry' }, ...inspections, ...configReads(overlay)], options);
  const outcomes = (from: number, to?: number) => reads.slice(from, to).map((read) => read.outcome);
  const msOf = (from: number, to?: number) => reads.slice(from, to).reduce((sum, read) => sum + read.ms, 0);
  const configFrom = 1 + inspections.length;
  const recorded = installRecordIds(reads[0]?.outcome ?? { kind: 'skipped' });
  progress.stepDone('registry-refresh', { ms: msOf(0, 1) });
  return {
    recorded,
    verify: () => {
      if (installed.length > 0) {
        verifyInstalls(installed, outcomes(1, configFrom));
        progress.stepDone('verify-installs', { ms: msOf(1, configFrom) });
      }
      checkAdmittedPolicy(overlay, outcomes(configFrom));
      progress.stepDone('verify-config', { ms: msOf(configFrom) });
    },
  };
}
