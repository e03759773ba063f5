import { isJsonObject } from '@occ/contracts';
import type { OpenClawConfig } from './native-config.ts';
import { normalizeNativeName, type OpenClawRuntimePlan } from './plan.ts';
import committed from './official-external-plugins.json' with { type: 'json' };

/**
 * The official plugins the pinned OpenClaw does not ship but installs by itself, at every gateway
 * start, once it finds them "configured" — a provider's API-key variable in the gateway's
 * environment is enough (`MODEL_API_KEY` names Meta's provider). Generated from the pinned package
 * by scripts/generate-openclaw-external-plugins.ts.
 */
export const OFFICIAL_EXTERNAL_PLUGIN_IDS: readonly string[] = Object.freeze([...committed.pluginIds]);

/**
 * The official external plugins to turn off (`plugins.entries.<id>.enabled: false`, which the
 * gateway's install repair honours; `plugins.deny` would warn about a plugin it cannot find):
 * every one no selection names and the Configuration does not set an entry for itself. A plugin
 * the gateway installed by itself would bypass every check OCC makes before readiness.
 */
export function externalPluginsToTurnOff(plan: OpenClawRuntimePlan, baseConfig: OpenClawConfig): string[] {
  const selected = new Set(plan.plugins.map(({ pluginId }) => normalizeNativeName(pluginId)));
  const plugins = isJsonObject(baseConfig.plugins) ? baseConfig.plugins : {};
  const entries = isJsonObject(plugins.entries) ? plugins.entries : {};
  const configured = new Set(Object.keys(entries).map(normalizeNativeName));
  return OFFICIAL_EXTERNAL_PLUGIN_IDS.filter((pluginId) => !selected.has(normalizeNativeName(pluginId)) && !configured.has(normalizeNativeName(pluginId)));
}
