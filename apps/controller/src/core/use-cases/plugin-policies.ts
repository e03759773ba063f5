import type { AgentPluginCapabilitiesSchema, Approver, Harness, PluginMap } from '@occ/contracts';
import type { Static } from '@sinclair/typebox';
import { OccError, invalid } from '../errors.ts';
import type { PluginDriverRegistry } from '../ports/plugin-driver.ts';

/**
 * Save-time plugin policy validation: after the shared shape validators (the HTTP schemas),
 * the harness's PluginDriver checks its static rules. Tool ownership and authentication are
 * startup checks, deliberately not made here; catalog membership is checked when an Agent is
 * saved (catalog-membership.ts), not at deploy, where the dry run reports it.
 */
export function validatePluginPolicies(drivers: PluginDriverRegistry, harness: Harness, plugins: PluginMap, approvers: Approver[] | null): void {
  const driver = drivers[harness];
  if (!driver) {
    if (Object.keys(plugins).length > 0) {
      throw new OccError('NOT_IMPLEMENTED', 'No PluginDriver is configured for this harness.', [{ path: '/plugins', code: 'UNSUPPORTED_FIELD' }]);
    }
    return;
  }
  const violations = driver.validatePolicies(plugins, approvers ?? undefined);
  if (violations.length > 0) {
    throw invalid(
      'The plugin policy uses controls the harness does not support.',
      violations.map((v) => ({ path: v.path, code: v.code })),
    );
  }
}

export function harnessCapabilities(drivers: PluginDriverRegistry, harness: Harness): Omit<Static<typeof AgentPluginCapabilitiesSchema>, 'harness'> {
  const driver = drivers[harness];
  return { pluginDriver: driver?.id ?? null, pluginPolicies: driver?.policyCapabilities ?? null };
}
