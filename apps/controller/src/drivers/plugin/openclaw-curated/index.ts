import { openclawCuratedRules } from '@occ/policy';
import type { PluginDriver } from '../../../core/ports/plugin-driver.ts';

/** The curated OpenClaw catalog driver (harness `openclaw`, no credential). Policy rules live in @occ/policy. */
export function createOpenClawCuratedDriver(): PluginDriver {
  return {
    id: openclawCuratedRules.driverId,
    harness: 'openclaw',
    policyCapabilities: openclawCuratedRules.capabilities,
    validatePolicies: (plugins, approvers) => openclawCuratedRules.validatePolicies(plugins, approvers),
  };
}
