import { cliFailure } from './cli-failure.ts';
import { StartupFailure } from './failure.ts';
import { parseJsonOutput, type OpenClawCli } from './openclaw-cli.ts';

/** `openclaw plugins registry --refresh --json`: rebuilds the persisted registry from manifests and install records. */
export async function refreshRegistry(cli: OpenClawCli, options: { timeoutMs: number; signal: AbortSignal }): Promise<void> {
  const outcome = await cli.run(['plugins', 'registry', '--refresh', '--json'], options);
  if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('PLUGIN_REGISTRY_REFRESH_FAILED', 'Refreshing the plugin registry', outcome);
  const parsed = parseJsonOutput(outcome.stdout);
  const refreshed = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && (parsed.value as { refreshed?: unknown }).refreshed === true;
  if (!refreshed) throw new StartupFailure('PLUGIN_REGISTRY_REFRESH_FAILED', 'Refreshing the plugin registry printed malformed output.');
}
