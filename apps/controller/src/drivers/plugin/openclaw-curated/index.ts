import { openclawCuratedCatalog, openclawCuratedRules, type OpenClawCatalog } from '@occ/policy';
import type { PluginDriver } from '../../../core/ports/plugin-driver.ts';
import { createCuratedDiscovery } from './catalog-discovery.ts';

export { openclawCatalogFromEnv } from './configuration.ts';

export interface OpenClawCuratedDriverOptions {
  /** An operator's catalog (validated with parseOpenClawCatalog); default: the committed one. */
  catalog?: OpenClawCatalog;
}

/** The curated OpenClaw catalog driver (harness `openclaw`, no credential). Policy rules live in @occ/policy. */
export function createOpenClawCuratedDriver(options: OpenClawCuratedDriverOptions = {}): PluginDriver {
  return {
    id: openclawCuratedRules.driverId,
    harness: 'openclaw',
    policyCapabilities: openclawCuratedRules.capabilities,
    validatePolicies: (plugins, approvers) => openclawCuratedRules.validatePolicies(plugins, approvers),
    discovery: createCuratedDiscovery(options.catalog ?? openclawCuratedCatalog()),
  };
}
