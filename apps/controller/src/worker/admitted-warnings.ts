import { PLUGIN_WARNING_CODES, type AgentRevision, type PluginWarning } from '@occ/contracts';

/**
 * Only warnings about the revision's own selections, in the closed code set, are kept: a
 * status that names anything else is not trusted to describe this deploy.
 */
export function admittedWarnings(revision: AgentRevision, warnings: readonly PluginWarning[] | undefined): PluginWarning[] {
  const selected = new Set(Object.keys(revision.plugins));
  const codes = new Set<string>(PLUGIN_WARNING_CODES);
  const seen = new Set<string>();
  return (warnings ?? []).filter((w) => {
    const key = `${w.pluginId}\u0000${w.code}`;
    if (!selected.has(w.pluginId) || !codes.has(w.code) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
