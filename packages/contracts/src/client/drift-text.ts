import type { AgentDrift } from '../resources/agent-drift.ts';

/** Names for the ids a drift holds, where the caller knows them (the console: its Configurations); an unknown one stays its id. */
export interface DriftNames {
  configuration?: (id: string) => string | undefined;
}

/**
 * The drift of an Agent in one line a person reads: what a plain deploy would change against the
 * active revision, or that nothing would. `apply` names how to deploy where the line is shown
 * (`occ deploy` in the CLI, the Deploy button in the console).
 */
export function driftText(drift: AgentDrift, apply: string, names: DriftNames = {}): string {
  if (drift.activeRevision === null) return 'No active revision: a deploy runs the Agent as it is.';
  if (drift.inSync) return `In sync: revision ${drift.activeRevision} runs the Agent as it is.`;
  const changes: string[] = [];
  const list = (label: string, ids: string[]) => ids.length > 0 && changes.push(`${label} ${ids.join(', ')}`);
  list('plugins added:', drift.plugins.added);
  list('plugins removed:', drift.plugins.removed);
  list('plugins changed:', drift.plugins.changed);
  if (drift.pluginApprovers) changes.push('default approvers changed');
  if (drift.harnessAuth) changes.push('harness auth changed');
  const configuration = drift.configuration;
  if (configuration !== null) {
    changes.push(
      configuration.active.id === configuration.desired.id
        ? `configuration generation ${configuration.active.generation} → ${configuration.desired.generation}`
        : `configuration ${names.configuration?.(configuration.active.id) ?? configuration.active.id} → ${names.configuration?.(configuration.desired.id) ?? configuration.desired.id}`,
    );
  }
  if (drift.computeDriver !== null) changes.push(`compute ${drift.computeDriver.active} → ${drift.computeDriver.desired}`);
  return `Drift: the Agent differs from active revision ${drift.activeRevision} (${changes.join('; ')}); ${apply} applies it.`;
}
