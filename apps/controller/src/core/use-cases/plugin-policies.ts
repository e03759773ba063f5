import type { AgentPluginCapabilitiesSchema, Approver, Harness, PluginMap } from '@occ/contracts';
import type { Static } from '@sinclair/typebox';
import { OccError, invalid } from '../errors.ts';
import type { ComputeDriver } from '../ports/compute-driver.ts';
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

/**
 * What the Installation's compute target runs of a plugin policy [P-3], checked where the target is
 * known — when an Agent is saved and when it is deployed — so an Agent it would refuse is never
 * stored or admitted: 400 naming the field.
 */
export function refuseComputeLimits(compute: ComputeDriver | undefined, plugins: PluginMap, approvers: Approver[] | null): void {
  const limits = compute?.pluginLimits;
  if (!limits) return;
  if (!limits.plugins && Object.keys(plugins).length > 0) {
    throw invalid(`The ${compute.id} compute target runs Agents without plugins: the plugin map must be empty.`, [{ path: '/plugins', code: 'UNSUPPORTED_FIELD' }]);
  }
  if (!limits.agentApprovers && approvers !== null) {
    throw invalid(`The ${compute.id} compute target takes no Agent default plugin approvers: pluginApprovers must be null.`, [
      { path: '/pluginApprovers', code: 'UNSUPPORTED_FIELD' },
    ]);
  }
}

type AgentPluginCapabilities = Static<typeof AgentPluginCapabilitiesSchema>;

export function harnessCapabilities(drivers: PluginDriverRegistry, harness: Harness): Pick<AgentPluginCapabilities, 'pluginDriver' | 'pluginPolicies'> {
  const driver = drivers[harness];
  return { pluginDriver: driver?.id ?? null, pluginPolicies: driver?.policyCapabilities ?? null };
}

/** What the Installation's compute target runs of a plugin policy (its `pluginLimits`; everything when it has none). */
export function computeCapabilities(compute: ComputeDriver | undefined): AgentPluginCapabilities['compute'] {
  const limits = compute?.pluginLimits;
  return { driver: compute?.id ?? null, plugins: limits?.plugins ?? true, agentApprovers: limits?.agentApprovers ?? true };
}
