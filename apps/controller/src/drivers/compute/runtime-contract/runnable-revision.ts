import { idPattern, type AgentRevision, type Harness, type RuntimeManifest } from '@occ/contracts';
import { codexHostedRules, openclawCuratedRules } from '@occ/policy';
import { ComputeValidationError } from '../../../core/ports/compute-driver.ts';
import { isReservedVariable, START_REFUSALS } from './start-refusal.ts';

/** The PluginDriver each harness runs with in the runtime (null: an Installation without one, so no plugin selections). */
const HARNESS_PLUGIN_DRIVERS: Readonly<Record<Harness, readonly (string | null)[]>> = {
  openclaw: [openclawCuratedRules.driverId, null],
  codex: [codexHostedRules.driverId, null],
};
const AGENT_ID = new RegExp(idPattern('agent'));
const REVISION_ID = new RegExp(idPattern('agent_revision'));

/** Ids become path segments and object names on every target: anything but a well-formed id is refused first. */
export const isAgentId = (id: string) => AGENT_ID.test(id);
export const isRevisionId = (id: string) => REVISION_ID.test(id);

/**
 * What every driver running OCC's runtime refuses before any effect: a harness or PluginDriver
 * the runtime does not serve, malformed ids, and a Secret binding on a reserved variable.
 * `driver` names the ComputeDriver in the messages.
 */
export function validateRunnableRevision(revision: AgentRevision, driver: string): void {
  const drivers = Object.hasOwn(HARNESS_PLUGIN_DRIVERS, revision.harness) ? HARNESS_PLUGIN_DRIVERS[revision.harness] : undefined;
  if (!drivers) throw new ComputeValidationError('HARNESS_UNSUPPORTED', `The ${driver} ComputeDriver runs the openclaw and codex harnesses only.`);
  if (!drivers.includes(revision.pluginDriverId)) {
    throw new ComputeValidationError(
      'PLUGIN_DRIVER_UNSUPPORTED',
      `The ${driver} ComputeDriver runs the ${revision.harness} harness with the ${drivers.filter(Boolean).join(', ')} PluginDriver only.`,
    );
  }
  if (!isAgentId(revision.agentId) || !isRevisionId(revision.id)) throw new ComputeValidationError('INVALID_REVISION', 'The revision ids are not well-formed.');
  const reserved = Object.keys(revision.configuration.secretBindings).find(isReservedVariable);
  if (reserved !== undefined) throw new ComputeValidationError('SECRET_VARIABLE_RESERVED', `${START_REFUSALS.SECRET_VARIABLE_RESERVED} (${reserved})`);
}

/** A manifest of another revision is never delivered as this one's (a programming error, not input). */
export function checkManifestDescribes(revision: AgentRevision, manifest: RuntimeManifest): void {
  if (manifest.revisionId !== revision.id || manifest.agentId !== revision.agentId || manifest.namespaceId !== revision.namespaceId) {
    throw new Error('The runtime manifest does not describe this revision.');
  }
}
