import { isJsonObject, type RuntimeManifest } from '@occ/contracts';
import {
  configurationChosenPlugins,
  normalizeNativeName,
  OpenClawPolicyError,
  translateOpenClawPolicy,
  type OpenClawCatalog,
  type OpenClawConfig,
  type UnselectedPluginsMode,
} from '@occ/policy';
import { StartupFailure } from '../failure.ts';
import { declaredJobsAskedFor, type ReadBackRules } from '../gateway-readback.ts';
import { logEvent } from '../log.ts';
import { withRuntimeSettings } from '../revision-config.ts';

export interface CodexGatewayBase {
  /** The Configuration under the governance every Agent's gateway gets; codexGatewayConfig adds the harness. */
  config: Record<string, unknown>;
  /** What of that governance the effective configuration must show (verifyAdmittedPolicy). */
  overlay: OpenClawConfig;
  /** The plugins whose tools the serving gateway may run: codex and what the Configuration turns on itself. */
  toolPlugins: ReadonlySet<string>;
}

/**
 * A Codex Agent's gateway is locked down like an OpenClaw Agent's (docs/security.md): the same
 * translator with no OpenClaw selections turns off the bundled tool plugins nobody selected, the
 * official external plugins the gateway would install by itself and the governance tools, and the
 * runtime settings keep OpenClaw's log in the Agent's state and its background turns off. Only the
 * codex plugin (the harness) is added to what may run.
 */
export function lockedDownCodexBase(input: { catalog: OpenClawCatalog; manifest: RuntimeManifest; stateDir: string; unselectedPlugins?: UnselectedPluginsMode }): CodexGatewayBase {
  const configuration: Record<string, unknown> = input.manifest.configuration.values;
  const plugins = isJsonObject(configuration.plugins) ? configuration.plugins : {};
  const entries = isJsonObject(plugins.entries) ? plugins.entries : {};
  const codex = isJsonObject(entries.codex) ? entries.codex : {};
  // An entry of its own keeps codex out of the external plugins turned off (findCodexGatewayConflicts refuses `enabled: false`).
  const baseConfig = { ...configuration, plugins: { ...plugins, entries: { ...entries, codex: { ...codex, enabled: true } } } };
  try {
    const translation = translateOpenClawPolicy({ catalog: input.catalog, selections: {}, baseConfig, unselectedPlugins: input.unselectedPlugins, governance: true });
    const toolPlugins = new Set([normalizeNativeName('codex'), ...configurationChosenPlugins(baseConfig)]);
    return { config: withRuntimeSettings(translation.config, input.stateDir), overlay: translation.overlay, toolPlugins };
  } catch (error) {
    if (!(error instanceof OpenClawPolicyError)) throw error;
    logEvent('policy.invalid', { harness: 'codex', violations: error.violations.map((found) => `${found.code} ${found.path || '/'}`) });
    throw new StartupFailure('PLUGIN_POLICY_INVALID', 'The Configuration conflicts with the governance of the Codex Agent’s gateway.');
  }
}

/** The read-back rules of the written configuration: jobs are judged against what it asks for. */
export function codexReadBack(written: Record<string, unknown>, base: CodexGatewayBase): ReadBackRules {
  return { toolPlugins: base.toolPlugins, declaredJobs: declaredJobsAskedFor(written, base.toolPlugins) };
}

/** The governance overlay and the harness overlay in one read-back (each section read once). */
export function mergeOverlays(governance: OpenClawConfig, harness: OpenClawConfig): OpenClawConfig {
  const merged: Record<string, unknown> = { ...governance };
  for (const [key, value] of Object.entries(harness)) {
    const existing = merged[key];
    merged[key] = isJsonObject(existing) && isJsonObject(value) ? mergeOverlays(existing, value) : value;
  }
  return merged;
}
