import { openclawCuratedCatalog, openclawCuratedRules, uncataloguedOpenClawSelections, type OpenClawCatalog, type UnselectedPluginsMode } from '@occ/policy';
import type { PluginDriver } from '../../../core/ports/plugin-driver.ts';
import { createCuratedDiscovery } from './catalog-discovery.ts';
import { previewOpenClawConfiguration } from './native-preview.ts';

export { openclawCatalogFromEnv } from './configuration.ts';

export interface OpenClawCuratedDriverOptions {
  /** An operator's catalog (validated with parseOpenClawCatalog); default: the committed one. */
  catalog?: OpenClawCatalog;
  /** What runtimes do with bundled tool plugins nobody selected (OCC_OPENCLAW_UNSELECTED_PLUGINS); for dry runs. */
  unselectedPlugins?: UnselectedPluginsMode;
}

/** The curated OpenClaw catalog driver (harness `openclaw`, no credential). Policy rules live in @occ/policy. */
export function createOpenClawCuratedDriver(options: OpenClawCuratedDriverOptions = {}): PluginDriver {
  const catalog = options.catalog ?? openclawCuratedCatalog();
  return {
    id: openclawCuratedRules.driverId,
    harness: 'openclaw',
    policyCapabilities: openclawCuratedRules.capabilities,
    validatePolicies: (plugins, approvers) => openclawCuratedRules.validatePolicies(plugins, approvers),
    uncataloguedSelections: (plugins) => uncataloguedOpenClawSelections(catalog, plugins),
    discovery: createCuratedDiscovery(catalog),
    previewNativeConfiguration: (plugins, values) => previewOpenClawConfiguration(catalog, options.unselectedPlugins, plugins, values),
  };
}
