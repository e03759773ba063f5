import { cliFailure } from './cli-failure.ts';
import { logEvent } from './log.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';

/**
 * The Agent's OpenClaw state outlives revisions, and OpenClaw loads an installed plugin that has
 * no `plugins.entries` entry. A plugin installed for an earlier revision and not admitted now
 * (or whose reinstall was just rejected) is therefore uninstalled, so the gateway runs exactly
 * the admitted plugins. `uninstall` edits the configuration too; the caller rewrites it afterwards.
 */
export async function uninstallStale(cli: OpenClawCommands, stale: readonly string[], options: { timeoutMs: number; signal: AbortSignal }): Promise<void> {
  if (stale.length === 0) return;
  logEvent('plugin.uninstall.stale', { pluginIds: stale });
  const outcome = await cli.uninstall(stale, options);
  if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('PLUGIN_INSTALL_ERROR', 'Uninstalling plugins no longer selected', outcome);
}
