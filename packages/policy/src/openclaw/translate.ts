import { isJsonObject, type PluginMap, type PolicyViolation } from '@occ/contracts';
import type { OpenClawCatalog } from './catalog.ts';
import { findOpenClawConflicts } from './conflicts.ts';
import { externalPluginsToTurnOff } from './external-plugins.ts';
import { governanceDenials } from './governance.ts';
import { mergeToolLists, readNativeBase, type MergedToolLists, type OpenClawConfig } from './native-config.ts';
import { normalizeNativeName, planOpenClawRuntime, type OpenClawRuntimePlan } from './plan.ts';
import { resolveManagedPlugins } from './resolve.ts';
import { DEFAULT_UNSELECTED_PLUGINS_MODE, unselectedToolPlugins, type UnselectedPluginsMode } from './unselected.ts';

export interface OpenClawTranslationInput {
  catalog: OpenClawCatalog;
  selections: PluginMap;
  /** Selection keys whose install the CLI confirmed rejected: disabled, their grant withdrawn. */
  failures?: ReadonlySet<string>;
  /** The operator's configuration the policy is applied to; never modified. */
  baseConfig: OpenClawConfig;
  /** The Installation's setting for bundled tool plugins nobody selected (unselected.ts); default `disable`. */
  /**
   * Deny the agent OpenClaw's governance tools the Configuration does not grant (governance.ts) and
   * turn off the official external plugins the gateway would install by itself (external-plugins.ts).
   * The runtime and the controller's dry run always ask for it; off only in the translator's own tests.
   */
  governance?: boolean;
  unselectedPlugins?: UnselectedPluginsMode;
}

export interface OpenClawTranslation {
  plan: OpenClawRuntimePlan;
  /** The effective native configuration to write: a new object. */
  config: OpenClawConfig;
  /** What must be found in the effective configuration read back afterwards (see verifyEffectiveConfig). */
  overlay: OpenClawConfig;
  /** Bundled tool plugins nobody selected, turned off (added to `plugins.deny`); `[]` with `keep`. */
  unselectedDisabled: string[];
}

/** A selection the catalog or the policy refuses, or a conflict with the base configuration. */
export class OpenClawPolicyError extends Error {
  constructor(readonly violations: PolicyViolation[]) {
    const details = violations.map((found) => `${found.path || '/'} ${found.message}`);
    super(`OpenClaw policy cannot be applied: ${details.join('; ')}`);
    this.name = 'OpenClawPolicyError';
  }
}

/**
 * The one translation of an Agent's plugin policy into OpenClaw's native configuration, used by
 * the controller (admission, dry-run) and the runtime (startup). `provider_default` and `none`
 * are the only approval modes the plan admits; neither adds a review step, so nothing is emitted.
 * Throws OpenClawPolicyError with every violation or conflict.
 */
export function translateOpenClawPolicy(input: OpenClawTranslationInput): OpenClawTranslation {
  const failures = input.failures ?? new Set<string>();
  const planned = planOpenClawRuntime(input.catalog, input.selections);
  if (!planned.ok) throw new OpenClawPolicyError(planned.violations);
  const { plan } = planned;
  const conflicts = findOpenClawConflicts(plan, input.baseConfig, failures);
  if (conflicts.length > 0) throw new OpenClawPolicyError(conflicts);

  const { base } = readNativeBase(input.baseConfig);
  const managed = resolveManagedPlugins(plan, failures);
  const lists = withGovernanceDenials(mergeToolLists(base, managed), input.governance === true ? governanceDenials(input.baseConfig) : []);
  const turnedOff = input.governance === true ? externalPluginsToTurnOff(plan, input.baseConfig) : [];
  const entries = Object.fromEntries([
    ...managed.map(({ planned, active }) => [planned.pluginId, { enabled: active }] as const),
    ...turnedOff.map((pluginId) => [pluginId, { enabled: false }] as const),
  ]);

  const mode = input.unselectedPlugins ?? DEFAULT_UNSELECTED_PLUGINS_MODE;
  const unselectedDisabled = mode === 'disable' ? unselectedToolPlugins(input.catalog, plan, input.baseConfig) : [];

  const config = structuredClone(input.baseConfig);
  if (Object.keys(entries).length > 0) assignAll(section(section(config, 'plugins'), 'entries'), entries);
  // `plugins.deny` rather than `entries.<id>.enabled: false`: deny wins over every other switch, and
  // `openclaw config get` redacts some entries whole (onepassword), so they could not be verified.
  const baseDeny = base.plugins.deny ?? [];
  const alreadyDenied = new Set(baseDeny.map(normalizeNativeName));
  const addedDeny = unselectedDisabled.filter((pluginId) => !alreadyDenied.has(normalizeNativeName(pluginId)));
  if (addedDeny.length > 0) assignAll(section(config, 'plugins'), { deny: [...baseDeny, ...addedDeny] });
  const toolLists = definedLists(lists);
  if (Object.keys(toolLists).length > 0) assignAll(section(config, 'tools'), toolLists);

  const overlay: OpenClawConfig = {};
  const pluginsOverlay: Record<string, unknown> = {};
  if (Object.keys(entries).length > 0) pluginsOverlay.entries = structuredClone(entries);
  if (addedDeny.length > 0) pluginsOverlay.deny = [...addedDeny];
  if (Object.keys(pluginsOverlay).length > 0) overlay.plugins = pluginsOverlay;
  const toolsOverlay: Record<string, unknown> = {};
  if (lists.grants.length > 0) toolsOverlay[lists.placement] = [...lists.grants];
  if (lists.deny !== undefined && lists.deny.length > 0) toolsOverlay.deny = [...lists.deny];
  if (base.tools.profile !== undefined) toolsOverlay.profile = structuredClone(base.tools.profile);
  if (Object.keys(toolsOverlay).length > 0) overlay.tools = toolsOverlay;
  return { plan, config, overlay, unselectedDisabled };
}

/** The governance tools join `tools.deny` (after the Configuration's and the policy's own entries). */
function withGovernanceDenials(lists: MergedToolLists, denials: readonly string[]): MergedToolLists {
  if (denials.length === 0) return lists;
  const deny = lists.deny ?? [];
  const present = new Set(deny.map((name) => name.trim().toLowerCase()));
  return { ...lists, deny: [...deny, ...denials.filter((name) => !present.has(name))] };
}

function definedLists({ allow, alsoAllow, deny }: MergedToolLists): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  if (allow !== undefined) lists.allow = allow;
  if (alsoAllow !== undefined) lists.alsoAllow = alsoAllow;
  if (deny !== undefined) lists.deny = deny;
  return lists;
}

/** The object at `parent[name]`, created when absent (readNativeBase already refused a non-object). */
function section(parent: Record<string, unknown>, name: string): Record<string, unknown> {
  const existing = Object.hasOwn(parent, name) ? parent[name] : undefined;
  if (isJsonObject(existing)) return existing;
  const created: Record<string, unknown> = {};
  assignAll(parent, { [name]: created });
  return created;
}

/** Own data properties, so a key such as `__proto__` stays a key. */
function assignAll(target: Record<string, unknown>, values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
}
