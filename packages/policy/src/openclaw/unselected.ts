import { isJsonObject } from '@occ/contracts';
import type { OpenClawCatalog, OpenClawCatalogPlugin } from './catalog.ts';
import { isStringList } from '../json.ts';
import type { OpenClawConfig } from './native-config.ts';
import { normalizeNativeName, type OpenClawRuntimePlan } from './plan.ts';

/**
 * What happens to bundled plugins that could give the agent tools but that nobody selected.
 * `disable` (the default, docs/plugin-policy.md "Only what was selected"): they are turned off
 * (their ids join `plugins.deny`), so the agent's plugin tools are exactly the selected
 * plugins' allowed tools. `keep`: OpenClaw's own defaults decide (it enables many bundled
 * plugins by itself, some of them with tools: browser, canvas, file-transfer, memory-core …).
 */
export type UnselectedPluginsMode = 'disable' | 'keep';
export const UNSELECTED_PLUGINS_MODES: readonly UnselectedPluginsMode[] = ['disable', 'keep'];
export const DEFAULT_UNSELECTED_PLUGINS_MODE: UnselectedPluginsMode = 'disable';

export function isUnselectedPluginsMode(value: unknown): value is UnselectedPluginsMode {
  return typeof value === 'string' && (UNSELECTED_PLUGINS_MODES as readonly string[]).includes(value);
}

/**
 * The plugin ids to disable, in catalog order: bundled plugins whose manifest declares agent
 * tools (or whose tools are unknown: channels, MCP) that no selection names (a selection, enabled
 * or not, is managed by the policy itself) and that the Configuration does not turn on itself.
 * Only bundled plugins: an unselected npm plugin is not installed (the runtime uninstalls what
 * an earlier revision left), and an entry for a plugin OpenClaw cannot find is a config error.
 * Plugins without tools (model providers, speech, device pairing …) are never touched. A
 * Configuration with a non-empty `plugins.allow` already names every plugin that may load
 * (OpenClaw's exclusive allowlist): nothing is added then.
 */
export function unselectedToolPlugins(catalog: OpenClawCatalog, plan: OpenClawRuntimePlan, baseConfig: OpenClawConfig): string[] {
  const allow = objectAt(baseConfig, 'plugins').allow;
  if (isStringList(allow) && allow.length > 0) return [];
  const selected = new Set(plan.plugins.map(({ pluginId }) => normalizeNativeName(pluginId)));
  const chosen = configurationChosenPlugins(baseConfig);
  const seen = new Set<string>();
  const result: string[] = [];
  for (const plugin of catalog.plugins) {
    const id = normalizeNativeName(plugin.pluginId);
    if (plugin.source !== 'bundled' || !mayRegisterTools(plugin) || selected.has(id) || chosen.has(id) || seen.has(id)) continue;
    seen.add(id);
    result.push(plugin.pluginId);
  }
  return result;
}

function mayRegisterTools(plugin: OpenClawCatalogPlugin): boolean {
  return plugin.tools === null || plugin.tools.length > 0;
}

/**
 * Plugin ids the Configuration itself turns on, normalized: `plugins.entries.<id>.enabled: true`,
 * an id in `plugins.allow`, a channel it configures (`channels.<id>`), a model provider
 * it configures (`models.providers.<id>`) or names in a model reference (`<provider>/<model>` in
 * `agents.defaults.model` or an `agents.list[].model`). These stay as OpenClaw would run them.
 */
export function configurationChosenPlugins(config: OpenClawConfig): Set<string> {
  const chosen = new Set<string>();
  const add = (id: string) => chosen.add(normalizeNativeName(id));
  const plugins = objectAt(config, 'plugins');
  const entries = objectAt(plugins, 'entries');
  for (const [id, entry] of Object.entries(entries)) if (isJsonObject(entry) && entry.enabled === true) add(id);
  if (isStringList(plugins.allow)) plugins.allow.forEach(add);
  Object.keys(objectAt(config, 'channels')).forEach(add);
  Object.keys(objectAt(objectAt(config, 'models'), 'providers')).forEach(add);
  const agents = objectAt(config, 'agents');
  const models = [objectAt(agents, 'defaults').model];
  if (Array.isArray(agents.list)) for (const agent of agents.list) if (isJsonObject(agent)) models.push(agent.model);
  for (const model of models) for (const ref of modelReferences(model)) add(ref.slice(0, ref.indexOf('/')));
  return chosen;
}

/** `"provider/model"`, or `{primary, fallbacks}` of such strings; only references with a provider part. */
function modelReferences(model: unknown): string[] {
  const refs: unknown[] = [];
  if (typeof model === 'string') refs.push(model);
  else if (isJsonObject(model)) {
    refs.push(model.primary);
    if (Array.isArray(model.fallbacks)) refs.push(...model.fallbacks);
  }
  return refs.filter((ref): ref is string => typeof ref === 'string' && ref.indexOf('/') > 0);
}

function objectAt(parent: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = Object.hasOwn(parent, name) ? parent[name] : undefined;
  return isJsonObject(value) ? value : {};
}
