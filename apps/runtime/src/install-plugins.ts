import type { OpenClawInstallRow } from '@occ/policy';
import { cliFailure } from './cli-failure.ts';
import { StartupFailure } from './failure.ts';
import { classifyInstallFailure } from './install-failure.ts';
import type { InstallFlags } from './install-flags.ts';
import { logEvent } from './log.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';
import type { StartupProgress } from './progress.ts';

/**
 * Installs each row in order with the real CLI, each within `timeoutMs` (the per-install
 * deadline). Only OpenClaw's rejection of a package (install-failure.ts) is returned as failed
 * (PLUGIN_INSTALL_FAILED) and the rest go on; an unreachable source (network, DNS, TLS, deadline,
 * signal) or a CLI that cannot run is an ordinary startup failure (thrown).
 */
export async function installPlugins(
  cli: OpenClawCommands,
  rows: readonly OpenClawInstallRow[],
  flags: InstallFlags,
  options: { timeoutMs: number; signal: AbortSignal },
  progress: StartupProgress,
): Promise<Set<string>> {
  const rejected = new Set<string>();
  for (const row of rows) {
    const started = Date.now();
    logEvent('plugin.install.start', { selectionKey: row.selectionKey, package: row.package, version: row.version });
    const outcome = await cli.install(row.package, row.version, flags, options);
    const ms = Date.now() - started;
    if (outcome.kind === 'exited' && outcome.code === 0) {
      progress.installed(row.selectionKey, 'done', { ms });
      continue;
    }
    const failure = classifyInstallFailure(outcome);
    switch (failure.kind) {
      case 'rejected':
        rejected.add(row.selectionKey);
        progress.installed(row.selectionKey, 'rejected', { exitCode: failure.exitCode, ms, warning: 'PLUGIN_INSTALL_FAILED' });
        break;
      case 'unreachable':
        progress.installed(row.selectionKey, 'unreachable', { reason: failure.reason, ms, deadlineMs: options.timeoutMs, code: 'PLUGIN_SOURCE_UNREACHABLE' });
        throw new StartupFailure('PLUGIN_SOURCE_UNREACHABLE', `Installing ${row.selectionKey} could not use its package source (${failure.reason}).`);
      default:
        throw cliFailure('PLUGIN_INSTALL_ERROR', `Installing ${row.selectionKey}`, outcome);
    }
  }
  return rejected;
}
