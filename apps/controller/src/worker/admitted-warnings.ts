import { admitPluginWarnings, type AgentRevision, type PluginWarning } from '@occ/contracts';

/**
 * Only warnings about the revision's own selections, in the closed code set, are kept: a
 * status that names anything else is not trusted to describe this deploy.
 */
export function admittedWarnings(revision: AgentRevision, warnings: readonly PluginWarning[] | undefined): PluginWarning[] {
  return admitPluginWarnings(warnings ?? [], new Set(Object.keys(revision.plugins)));
}
