import type { Approver, Harness, PluginMap, PluginPolicyCapabilities, PolicyViolation } from '@occ/contracts';

/**
 * The PluginDriver port: one per harness. This foundation needs only the static policy
 * surface; catalog discovery joins it later.
 */
export interface PluginDriver {
  readonly id: string;
  readonly harness: Harness;
  readonly policyCapabilities: PluginPolicyCapabilities;
  /** Static checks only (no I/O): unsupported controls, scopes and combinations. */
  validatePolicies(plugins: PluginMap, agentApprovers?: Approver[]): PolicyViolation[];
}

/** The configured PluginDriver of each harness; a harness without one is absent. */
export type PluginDriverRegistry = Partial<Record<Harness, PluginDriver>>;
