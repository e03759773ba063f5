import type { PluginMap, PluginSelection, PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { openclawCuratedRules } from '../openclaw-curated.ts';
import { checkAliasedPlugins, dedupeViolations, violation } from '../shared-rules.ts';
import type { OpenClawCatalog, OpenClawCatalogPlugin } from './catalog.ts';
import { notInOpenClawCatalog, openclawCatalogLookup } from './catalog-membership.ts';

/** One selection resolved against the pinned runtime's catalog. */
export interface OpenClawPlannedPlugin {
  selectionKey: string;
  selection: PluginSelection;
  catalogPlugin: OpenClawCatalogPlugin;
  /** OpenClaw's own plugin id: `plugins.entries.<pluginId>`, the plugin's tool group in allow/deny lists. */
  pluginId: string;
}

/** What the runtime installs with `openclaw plugins install <package>@<version>`; npm-distributed plugins only. */
export interface OpenClawInstallRow {
  selectionKey: string;
  pluginId: string;
  package: string;
  version: string;
  integrity: string;
}

export interface OpenClawRuntimePlan {
  /** In selection order. */
  plugins: OpenClawPlannedPlugin[];
  /** In selection order; bundled plugins ship inside the runtime and have no row. */
  installs: OpenClawInstallRow[];
  /** Native tool name (lowercase, as OpenClaw matches it) → the enabled selection key that owns it. */
  toolOwners: ReadonlyMap<string, string>;
}

export type OpenClawPlanResult = { ok: true; plan: OpenClawRuntimePlan } | { ok: false; violations: PolicyViolation[] };

/** OpenClaw matches plugin ids and tool names trimmed and case-insensitively. */
export function normalizeNativeName(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * Validates selections against the pinned runtime's catalog and the driver's static policy rules
 * (so the runtime needs no second call), and resolves what to install. Violations point into the
 * Agent body (`/plugins/<key>/…`); keys are checked sorted, so the output never depends on key order.
 */
export function planOpenClawRuntime(catalog: OpenClawCatalog, selections: PluginMap): OpenClawPlanResult {
  const lookup = openclawCatalogLookup(catalog);
  const violations = [...openclawCuratedRules.validatePolicies(selections)];
  const flaggedKeys = new Set(violations.map((found) => found.path));
  const planned = new Map<string, OpenClawPlannedPlugin>();
  for (const selectionKey of Object.keys(selections).sort()) {
    const catalogPlugin = lookup(selectionKey);
    const selection = selections[selectionKey]!;
    if (catalogPlugin === undefined) {
      if (!flaggedKeys.has(pointer('plugins', selectionKey))) violations.push(notInOpenClawCatalog(selectionKey));
      continue;
    }
    planned.set(selectionKey, { selectionKey, selection, catalogPlugin, pluginId: catalogPlugin.pluginId });
    violations.push(...checkToolIds(selectionKey, selection, catalogPlugin.tools));
  }
  const sortedKeys = [...planned.keys()];
  violations.push(...checkAliasedPlugins(sortedKeys, (key) => normalizeNativeName(planned.get(key)!.pluginId)));
  const { toolOwners, violations: ownership } = resolveToolOwners(sortedKeys.map((key) => planned.get(key)!));
  violations.push(...ownership);
  if (violations.length > 0) return { ok: false, violations: dedupeViolations(violations) };

  const plugins = Object.keys(selections).map((selectionKey) => planned.get(selectionKey)!);
  const installs = plugins
    .filter(({ catalogPlugin }) => catalogPlugin.source === 'npm')
    .map(({ selectionKey, pluginId, catalogPlugin }) => ({
      selectionKey,
      pluginId,
      package: catalogPlugin.package,
      version: catalogPlugin.version,
      integrity: catalogPlugin.integrity,
    }));
  return { ok: true, plan: { plugins, installs, toolOwners } };
}

function checkToolIds(selectionKey: string, selection: PluginSelection, known: readonly string[] | null): PolicyViolation[] {
  const toolIds = Object.keys(selection.tools ?? {}).sort();
  if (toolIds.length === 0) return [];
  if (known === null) {
    const message = 'The catalog does not list this plugin’s tools, so per-tool policies cannot be bound to it.';
    return [violation(pointer('plugins', selectionKey, 'tools'), 'INVALID_COMBINATION', message)];
  }
  const knownIds = new Set(known);
  return toolIds
    .filter((toolId) => !knownIds.has(toolId))
    .map((toolId) => violation(pointer('plugins', selectionKey, 'tools', toolId), 'INVALID_VALUE', 'The plugin does not register this tool.'));
}

/**
 * Two enabled plugins registering the same tool name is a native conflict; the first key (sorted)
 * owns it. Two keys naming one plugin are an alias, reported by checkAliasedPlugins instead.
 */
function resolveToolOwners(sorted: readonly OpenClawPlannedPlugin[]) {
  const toolOwners = new Map<string, string>();
  const violations: PolicyViolation[] = [];
  const ownerPlugin = new Map<string, string>();
  for (const { selectionKey, selection, catalogPlugin, pluginId } of sorted) {
    if (!selection.enabled) continue;
    for (const tool of catalogPlugin.tools ?? []) {
      const name = normalizeNativeName(tool);
      const owner = toolOwners.get(name);
      if (owner === undefined) {
        toolOwners.set(name, selectionKey);
        ownerPlugin.set(name, normalizeNativeName(pluginId));
      } else if (ownerPlugin.get(name) !== normalizeNativeName(pluginId)) {
        const message = `Tool ${JSON.stringify(tool)} is also registered by the enabled selection ${JSON.stringify(owner)}.`;
        violations.push(violation(pointer('plugins', selectionKey), 'INVALID_COMBINATION', message));
      }
    }
  }
  return { toolOwners, violations };
}
