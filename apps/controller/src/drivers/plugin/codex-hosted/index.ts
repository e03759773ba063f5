import { codexHostedRules } from '@occ/policy';
import type { PluginDriver } from '../../../core/ports/plugin-driver.ts';
import { createHostedDiscovery, type CodexHostedDiscoveryOptions } from './hosted-catalog-client.ts';

export { codexHostedDiscoveryOptionsFromEnv } from './configuration.ts';
export type { CodexHostedDiscoveryOptions } from './hosted-catalog-client.ts';

export interface CodexHostedDriverOptions {
  /** Hosted catalog discovery (credential `codex_pat`); `false` leaves the driver without discovery. */
  discovery?: CodexHostedDiscoveryOptions | false;
}

/** The hosted Codex catalog driver (harness `codex`, needs a codex_pat). Policy rules live in @occ/policy. */
export function createCodexHostedDriver(options: CodexHostedDriverOptions = {}): PluginDriver {
  const driver: PluginDriver = {
    id: codexHostedRules.driverId,
    harness: 'codex',
    policyCapabilities: codexHostedRules.capabilities,
    validatePolicies: (plugins, approvers) => codexHostedRules.validatePolicies(plugins, approvers),
  };
  return options.discovery === false ? driver : { ...driver, discovery: createHostedDiscovery(options.discovery) };
}
