import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { violation } from '../shared-rules.ts';
import { mergeToolLists, readNativeBase, type NativeBase, type OpenClawConfig } from './native-config.ts';
import { normalizeNativeName, type OpenClawRuntimePlan } from './plan.ts';
import { resolveManagedPlugins, type ManagedPlugin } from './resolve.ts';

/**
 * Conflicts between the managed plugins and the operator's base configuration; they fail startup
 * before any install (run with no failures) and again when policy is applied after installs.
 * Violations point at the selection in the Agent body; a malformed base is reported at `''`.
 */
export function findOpenClawConflicts(plan: OpenClawRuntimePlan, baseConfig: OpenClawConfig, failures: ReadonlySet<string> = new Set()): PolicyViolation[] {
  const { base, violations } = readNativeBase(baseConfig);
  if (violations.length > 0) return violations;
  const managed = resolveManagedPlugins(plan, failures);
  const found = managed.flatMap((plugin) => [...checkEntry(base, plugin), ...checkActivePlugin(base, plugin)]);
  const message = 'Without this plugin the Configuration’s tools.allow would become empty, which allows every tool.';
  for (const selectionKey of mergeToolLists(base, managed).emptiedAllowBy) {
    found.push(violation(pointer('plugins', selectionKey, 'enabled'), 'INVALID_COMBINATION', message));
  }
  return found;
}

/** Only the managed `{enabled}` shape may already be there (a re-apply); anything else is the operator's. */
function checkEntry(base: NativeBase, { planned }: ManagedPlugin): PolicyViolation[] {
  const { entries } = base.plugins;
  if (!Object.hasOwn(entries, planned.pluginId)) return [];
  const entry = entries[planned.pluginId];
  if (isJsonObject(entry) && Object.keys(entry).length === 1 && typeof entry.enabled === 'boolean') return [];
  const message = `The Configuration already sets plugins.entries.${planned.pluginId} to something else.`;
  return [violation(pointer('plugins', planned.selectionKey), 'INVALID_COMBINATION', message)];
}

function checkActivePlugin(base: NativeBase, { planned, active, grant }: ManagedPlugin): PolicyViolation[] {
  if (!active) return [];
  const nativeId = normalizeNativeName(planned.pluginId);
  const names = (list: readonly string[] | undefined) => (list ?? []).map(normalizeNativeName);
  const enabledPath = pointer('plugins', planned.selectionKey, 'enabled');
  const found: PolicyViolation[] = [];
  const conflict = (path: string, message: string) => found.push(violation(path, 'INVALID_COMBINATION', message));
  const { plugins, tools } = base;
  if (plugins.enabled === false) conflict(enabledPath, 'The Configuration turns every plugin off (plugins.enabled: false).');
  if (names(plugins.deny).includes(nativeId)) conflict(enabledPath, 'The Configuration denies this plugin (plugins.deny).');
  if ((plugins.allow ?? []).length > 0 && !names(plugins.allow).includes(nativeId)) {
    conflict(enabledPath, 'The Configuration’s plugins.allow does not include this plugin.');
  }
  // A deny on the plugin's id blocks its whole tool group, including tools the policy allows.
  if (grant && names(tools.deny).includes(nativeId)) {
    const message = 'The Configuration’s tools.deny names this plugin, blocking tools its policy allows.';
    conflict(pointer('plugins', planned.selectionKey), message);
  }
  return found;
}
