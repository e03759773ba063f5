import { codexHostedRules } from '@occ/policy';
import type { PluginDriver } from '../../../core/ports/plugin-driver.ts';

/** The hosted Codex catalog driver (harness `codex`, needs a codex_pat). Policy rules live in @occ/policy. */
export function createCodexHostedDriver(): PluginDriver {
  return {
    id: codexHostedRules.driverId,
    harness: 'codex',
    policyCapabilities: codexHostedRules.capabilities,
    validatePolicies: (plugins, approvers) => codexHostedRules.validatePolicies(plugins, approvers),
  };
}
