import { DEFAULT_UNSELECTED_PLUGINS_MODE, isUnselectedPluginsMode, UNSELECTED_PLUGINS_MODES, type UnselectedPluginsMode } from '@occ/policy';

/**
 * The Installation's OCC_OPENCLAW_UNSELECTED_PLUGINS: what OpenClaw runtimes do with bundled tool
 * plugins no selection names (docs/plugin-policy.md, "Only what was selected"). Unset: `disable`.
 * Validated at startup, so a typo stops `occ up` instead of silently keeping plugins on.
 */
export function unselectedPluginsSetting(env: NodeJS.ProcessEnv): UnselectedPluginsMode {
  const value = env.OCC_OPENCLAW_UNSELECTED_PLUGINS;
  if (value === undefined || value === '') return DEFAULT_UNSELECTED_PLUGINS_MODE;
  if (isUnselectedPluginsMode(value)) return value;
  throw new Error(`OCC_OPENCLAW_UNSELECTED_PLUGINS must be one of ${UNSELECTED_PLUGINS_MODES.join(', ')}.`);
}
