import { isDeepStrictEqual } from 'node:util';
import type { AgentDrift, AgentRevision } from '@occ/contracts';

/** What a deploy would snapshot now: the Agent's desired state and the Installation's drivers. */
export type DesiredSnapshot = Pick<AgentRevision, 'plugins' | 'pluginApprovers' | 'harnessAuth' | 'computeDriverId'> & {
  configuration: Pick<AgentRevision['configuration'], 'id' | 'generation'>;
};

export type SnapshotDifferences = Omit<AgentDrift, 'agentId' | 'activeRevisionId' | 'activeRevision'>;

/**
 * How `desired` differs from the `active` revision. One home for the rule: the drift read shows
 * it, and a deploy with no difference is a no-op (deploy.ts). A Configuration counts as changed
 * when the binding or its generation differs (a generation is one saved version of its values
 * and Secret bindings).
 */
export function snapshotDifferences(desired: DesiredSnapshot, active: AgentRevision): SnapshotDifferences {
  const ids = (plugins: AgentRevision['plugins']) => Object.keys(plugins).sort();
  const before = active.plugins;
  const after = desired.plugins;
  const plugins = {
    added: ids(after).filter((id) => !Object.hasOwn(before, id)),
    removed: ids(before).filter((id) => !Object.hasOwn(after, id)),
    changed: ids(after).filter((id) => Object.hasOwn(before, id) && !isDeepStrictEqual(before[id], after[id])),
  };
  const activeConfiguration = { id: active.configuration.id, generation: active.configuration.generation };
  const desiredConfiguration = { id: desired.configuration.id, generation: desired.configuration.generation };
  const differences: SnapshotDifferences = {
    inSync: false,
    plugins,
    pluginApprovers: !isDeepStrictEqual(desired.pluginApprovers, active.pluginApprovers),
    harnessAuth: !isDeepStrictEqual(desired.harnessAuth, active.harnessAuth),
    configuration: isDeepStrictEqual(activeConfiguration, desiredConfiguration) ? null : { active: activeConfiguration, desired: desiredConfiguration },
    computeDriver: desired.computeDriverId === active.computeDriverId ? null : { active: active.computeDriverId, desired: desired.computeDriverId },
  };
  differences.inSync =
    plugins.added.length + plugins.removed.length + plugins.changed.length === 0 &&
    !differences.pluginApprovers &&
    !differences.harnessAuth &&
    differences.configuration === null &&
    differences.computeDriver === null;
  return differences;
}

/** A candidate revision that would run exactly what `active` runs: same snapshot, harness, drivers and service principal. */
export function admitsNothingNew(candidate: AgentRevision, active: AgentRevision): boolean {
  return (
    snapshotDifferences(candidate, active).inSync &&
    candidate.harness === active.harness &&
    candidate.pluginDriverId === active.pluginDriverId &&
    candidate.servicePrincipalId === active.servicePrincipalId
  );
}
