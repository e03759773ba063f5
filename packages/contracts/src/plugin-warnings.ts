import { PLUGIN_WARNING_CODES, type PluginWarning } from './resources/revision.ts';

const CODES: ReadonlySet<string> = new Set(PLUGIN_WARNING_CODES);

/**
 * Whether a reported warning may describe this deploy: it names one of the revision's own
 * selection keys and carries a code of the closed vocabulary. Compute (judging a runtime's
 * startup status) and the worker (storing the outcome) apply the same rule.
 */
export function isAdmissibleWarning(warning: { pluginId: string; code: string }, selections: ReadonlySet<string>): boolean {
  return selections.has(warning.pluginId) && CODES.has(warning.code);
}

/** The admissible warnings, each (plugin, code) pair once in first-seen order, as plain `{pluginId, code}`. */
export function admitPluginWarnings(warnings: readonly { pluginId: string; code: string }[], selections: ReadonlySet<string>): PluginWarning[] {
  const seen = new Set<string>();
  const admitted: PluginWarning[] = [];
  for (const { pluginId, code } of warnings) {
    const key = `${pluginId}\u0000${code}`;
    if (!isAdmissibleWarning({ pluginId, code }, selections) || seen.has(key)) continue;
    seen.add(key);
    admitted.push({ pluginId, code: code as PluginWarning['code'] });
  }
  return admitted;
}
