import { cliFailure } from './cli-failure.ts';
import { StartupFailure } from './failure.ts';
import { parseJsonOutput, type CliOutcome } from './openclaw-cli.ts';

/**
 * What `openclaw plugins registry --refresh --json` answered (it rebuilds the persisted registry
 * from manifests, install records and config policy): the plugin ids that have an install record
 * in the Agent's state (every installed, non-bundled plugin).
 */
export function installRecordIds(outcome: CliOutcome): string[] {
  if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('PLUGIN_REGISTRY_REFRESH_FAILED', 'Refreshing the plugin registry', outcome);
  const parsed = parseJsonOutput(outcome.stdout);
  const answer = (parsed.ok ? parsed.value : null) as { refreshed?: unknown; registry?: { installRecords?: unknown } } | null;
  const records = answer?.registry?.installRecords;
  if (answer?.refreshed !== true || typeof records !== 'object' || records === null || Array.isArray(records)) {
    throw new StartupFailure('PLUGIN_REGISTRY_REFRESH_FAILED', 'Refreshing the plugin registry printed malformed output.');
  }
  return Object.keys(records);
}
