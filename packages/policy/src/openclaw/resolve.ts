import type { PluginSelection } from '@occ/contracts';
import type { OpenClawPlannedPlugin, OpenClawRuntimePlan } from './plan.ts';

/** One selection's effect on the native configuration. */
export interface ManagedPlugin {
  planned: OpenClawPlannedPlugin;
  /** `enabled: true` and the install did not fail: `plugins.entries.<pluginId>.enabled`. */
  active: boolean;
  /** The plugin's tool group goes into the allow list: active, and not every tool is disabled. */
  grant: boolean;
  /** Native denies (catalog order); empty for inactive plugins, whose tools never load. */
  deny: string[];
}

/** The tool override first, then `toolDefaults`, then OpenClaw's own default (enabled). */
function toolIsDisabled(selection: PluginSelection, toolId: string): boolean {
  const override = Object.hasOwn(selection.tools ?? {}, toolId) ? selection.tools![toolId]!.enabled : undefined;
  return (override ?? selection.toolDefaults?.enabled ?? true) === false;
}

/**
 * The master `enabled` gate beats every tool override: an inactive plugin gets neither grant nor
 * denies. With an unknown tool list (`tools: null`) the plan refused per-tool policies, so only
 * `toolDefaults.enabled:false` can disable tools — all of them, as a deny on the plugin's id.
 */
export function resolveManagedPlugins(plan: OpenClawRuntimePlan, failures: ReadonlySet<string>): ManagedPlugin[] {
  return plan.plugins.map((planned) => {
    const active = planned.selection.enabled && !failures.has(planned.selectionKey);
    if (!active) return { planned, active, grant: false, deny: [] };
    const tools = planned.catalogPlugin.tools;
    if (tools === null) {
      const allDisabled = planned.selection.toolDefaults?.enabled === false;
      return { planned, active, grant: !allDisabled, deny: allDisabled ? [planned.pluginId] : [] };
    }
    const deny = [...new Set(tools.filter((tool) => toolIsDisabled(planned.selection, tool)))];
    return { planned, active, grant: deny.length < new Set(tools).size, deny };
  });
}
