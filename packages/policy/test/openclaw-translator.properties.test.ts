import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PluginSelection } from '@occ/contracts';
import { OpenClawPolicyError, parsePointer, translateOpenClawPolicy, verifyEffectiveConfig, type OpenClawConfig, type OpenClawTranslation } from '../src/index.ts';
import { openClawScenarioArb, type OpenClawScenario } from './arbitraries.ts';

const native = (name: string) => name.trim().toLowerCase();
const stripPrefix = (key: string) => (key.startsWith('openclaw:') ? key.slice('openclaw:'.length) : key);

/** The resolution rule, written out again independently of the implementation. */
function disabledByPolicy(selection: PluginSelection, tool: string): boolean {
  const tools = selection.tools ?? {};
  const override = Object.hasOwn(tools, tool) ? tools[tool]!.enabled : undefined;
  return (override ?? selection.toolDefaults?.enabled ?? true) === false;
}

function list(config: OpenClawConfig, field: 'allow' | 'alsoAllow' | 'deny'): string[] {
  const tools = config.tools as Record<string, unknown> | undefined;
  return (tools?.[field] as string[] | undefined) ?? [];
}

/** The translation, or null when it refuses the input (with at least one well-formed violation). */
function attempt(scenario: OpenClawScenario): OpenClawTranslation | null {
  try {
    return translateOpenClawPolicy(scenario);
  } catch (error) {
    expect(error).toBeInstanceOf(OpenClawPolicyError);
    const { violations } = error as OpenClawPolicyError;
    expect(violations.length).toBeGreaterThan(0);
    for (const { path } of violations) expect(path === '' || parsePointer(path)[0] === 'plugins').toBe(true);
    return null;
  }
}

function checkInvariants(scenario: OpenClawScenario, result: OpenClawTranslation): void {
  const { config, overlay } = result;
  const deny = list(config, 'deny');
  const granted = [...list(config, 'allow'), ...list(config, 'alsoAllow')].map(native);
  for (const [key, selection] of Object.entries(scenario.selections)) {
    const plugin = scenario.catalog.plugins.find(({ id }) => id === stripPrefix(key))!;
    const active = selection.enabled && !scenario.failures.has(key);
    // (a) a disabled or failed plugin has no grant, and is disabled natively
    if (!active) expect(granted).not.toContain(native(plugin.pluginId));
    const entries = (config.plugins as { entries: Record<string, unknown> }).entries;
    expect(entries[plugin.pluginId]).toEqual({ enabled: active });
    if (!active) continue;
    // (a) every tool the policy disables is natively denied; unknown tools can only be denied as a group
    if (plugin.tools === null) {
      if (selection.toolDefaults?.enabled === false) expect(deny).toContain(plugin.pluginId);
      else expect(granted).toContain(native(plugin.pluginId));
    } else {
      for (const tool of plugin.tools.filter((name) => disabledByPolicy(selection, name))) expect(deny).toContain(tool);
      if (plugin.tools.some((name) => !disabledByPolicy(selection, name))) expect(granted).toContain(native(plugin.pluginId));
    }
  }
  // (b) every base deny survives, in its place
  const baseDeny = ((scenario.baseConfig.tools as Record<string, unknown> | undefined)?.deny as string[] | undefined) ?? [];
  expect(deny.slice(0, baseDeny.length)).toEqual(baseDeny);
  // (c) the configuration contains its own overlay
  expect(verifyEffectiveConfig(config, overlay)).toEqual([]);
  expect(verifyEffectiveConfig(JSON.parse(JSON.stringify(config)), overlay)).toEqual([]);
  // native validation: allow and alsoAllow are never both non-empty unless the base already had both
  const baseTools = (scenario.baseConfig.tools ?? {}) as Record<string, string[] | undefined>;
  if ((baseTools.allow ?? []).length === 0 || (baseTools.alsoAllow ?? []).length === 0) {
    expect(list(config, 'allow').length === 0 || list(config, 'alsoAllow').length === 0).toBe(true);
  }
}

describe('translateOpenClawPolicy properties', () => {
  it('[N-1] [N-2] [N-3] [N-4] [N-9] no selection yields a configuration that allows a tool its policy disables', () => {
    fc.assert(
      fc.property(openClawScenarioArb({ clean: false }), (scenario) => {
        const result = attempt(scenario);
        if (result !== null) checkInvariants(scenario, result);
      }),
      { numRuns: 500 },
    );
  });

  it('[N-1] [N-2] [N-3] [N-4] [N-9] inputs without conflicts always translate, with the same guarantees', () => {
    fc.assert(
      fc.property(openClawScenarioArb({ clean: true }), (scenario) => {
        checkInvariants(scenario, translateOpenClawPolicy(scenario));
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic and leaves its inputs alone', () => {
    fc.assert(
      fc.property(openClawScenarioArb({ clean: false }), (scenario) => {
        const before = structuredClone(scenario);
        const first = outcome(scenario);
        expect(scenario).toEqual(before);
        expect(outcome(structuredClone(scenario))).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });
});

function outcome(scenario: OpenClawScenario): unknown {
  try {
    const { config, overlay, plan } = translateOpenClawPolicy(scenario);
    return { config, overlay, plan: { ...plan, toolOwners: [...plan.toolOwners] } };
  } catch (error) {
    return (error as OpenClawPolicyError).violations;
  }
}
