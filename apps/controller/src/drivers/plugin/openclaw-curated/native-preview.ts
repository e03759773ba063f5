import { isJsonObject, type NativeConfigurationPreview, type PluginMap } from '@occ/contracts';
import { OpenClawPolicyError, translateOpenClawPolicy, type OpenClawCatalog, type UnselectedPluginsMode } from '@occ/policy';

/**
 * The `plugins` and `tools` sections the runtime would write, from the one translator the
 * runtime runs at startup (apps/runtime/src/prepare.ts) with the same catalog
 * (OCC_OPENCLAW_CATALOG) and the same unselected-plugins setting. No install failure is assumed:
 * those are known only at startup. A refusal carries pointers and codes, never messages.
 */
export function previewOpenClawConfiguration(
  catalog: OpenClawCatalog,
  unselectedPlugins: UnselectedPluginsMode | undefined,
  selections: PluginMap,
  values: Record<string, unknown>,
): NativeConfigurationPreview {
  try {
    const { config, unselectedDisabled } = translateOpenClawPolicy({ catalog, selections, baseConfig: values, unselectedPlugins, governance: true });
    const section = (name: string) => {
      const found = Object.hasOwn(config, name) ? config[name] : undefined;
      return isJsonObject(found) ? found : null;
    };
    return { status: 'translated', harness: 'openclaw', plugins: section('plugins'), tools: section('tools'), unselectedDisabled };
  } catch (error) {
    if (!(error instanceof OpenClawPolicyError)) throw error;
    return { status: 'refused', harness: 'openclaw', violations: error.violations.map(({ path, code }) => ({ path, code })) };
  }
}
