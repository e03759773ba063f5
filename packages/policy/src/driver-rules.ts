import type { Approver, PluginMap, PluginPolicyCapabilities, PolicyViolation } from '@occ/contracts';
import { codexHostedRules } from './codex-hosted.ts';
import { openclawCuratedRules } from './openclaw-curated.ts';

export type PluginDriverId = 'openclaw-curated' | 'codex-hosted';
export type PluginHarness = PluginPolicyCapabilities['harness'];

export interface PluginPolicyRules {
  readonly driverId: PluginDriverId;
  readonly harness: PluginHarness;
  readonly capabilities: PluginPolicyCapabilities;
  /**
   * Static checks only; input is already shape-valid (passed PluginMapSchema/ApproverListSchema).
   * Returns every violation, [] when valid. `null` approvers mean "no Agent default", like omission.
   */
  validatePolicies(plugins: PluginMap, agentApprovers?: Approver[] | null): PolicyViolation[];
  /** The native plugin a selection key names (used for alias detection). */
  nativePluginId(selectionKey: string): string;
}

export const pluginPolicyRulesById: Readonly<Record<PluginDriverId, PluginPolicyRules>> = Object.freeze({
  'openclaw-curated': openclawCuratedRules,
  'codex-hosted': codexHostedRules,
});

export function isPluginDriverId(value: string): value is PluginDriverId {
  return Object.hasOwn(pluginPolicyRulesById, value);
}
