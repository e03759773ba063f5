import type { OpenClawInstallRow } from '@occ/policy';
import { cliFailure } from './cli-failure.ts';
import { installArgs, type InstallFlags } from './install-flags.ts';
import { logEvent } from './log.ts';
import type { OpenClawCli } from './openclaw-cli.ts';

/**
 * Installs each row in order with the real CLI. A normal non-zero exit is the CLI's confirmed
 * rejection: the selection key is returned as failed (PLUGIN_INSTALL_FAILED) and the rest go on.
 * A timeout, a signal or a CLI that cannot run is an ordinary startup failure (thrown).
 */
export async function installPlugins(
  cli: OpenClawCli,
  rows: readonly OpenClawInstallRow[],
  flags: InstallFlags,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<Set<string>> {
  const rejected = new Set<string>();
  for (const row of rows) {
    const started = Date.now();
    logEvent('plugin.install.start', { selectionKey: row.selectionKey, package: row.package, version: row.version });
    const outcome = await cli.run(installArgs(row.package, row.version, flags), { ...options, echoStdout: true });
    if (outcome.kind !== 'exited') throw cliFailure('PLUGIN_INSTALL_ERROR', `Installing ${row.selectionKey}`, outcome);
    const ms = Date.now() - started;
    if (outcome.code === 0) {
      logEvent('plugin.install.done', { selectionKey: row.selectionKey, ms });
    } else {
      rejected.add(row.selectionKey);
      logEvent('plugin.install.rejected', { selectionKey: row.selectionKey, exitCode: outcome.code, ms, warning: 'PLUGIN_INSTALL_FAILED' });
    }
  }
  return rejected;
}
