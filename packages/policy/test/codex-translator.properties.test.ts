import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PluginSelection } from '@occ/contracts';
import {
  codexAppConfigEdits,
  codexAppToolSettings,
  codexInstallPlan,
  codexRuntimeArtifact,
  parsePointer,
  verifyCodexAppConfiguration,
  verifyCodexReviewerConfiguration,
  type CodexConfig,
  type CodexTool,
} from '../src/index.ts';
import { codexScenarioArb, type CodexScenario } from './arbitraries.ts';
import { applyEdits, mergeLayers } from './codex-support.ts';

type Json = Record<string, unknown>;

/** The whole startup translation, or the violations of the step that refused the scenario. */
function run(scenario: CodexScenario) {
  const planned = codexInstallPlan({ selections: scenario.selections, details: scenario.details });
  if (!planned.ok) return planned;
  const bound = codexAppToolSettings({ plan: planned.plan, inventory: scenario.inventory, failures: scenario.failures });
  if (!bound.ok) return bound;
  const artifact = codexRuntimeArtifact({ plan: planned.plan, toolSettings: bound.toolSettings, failures: scenario.failures });
  const edits = codexAppConfigEdits({ artifact, effective: scenario.lower });
  const effective = mergeLayers(scenario.lower, applyEdits({}, edits)) as CodexConfig;
  return { ok: true as const, plan: planned.plan, artifact, edits, effective };
}

/** The tool a policy id names, resolved again independently: by name, or by one of its catalog aliases. */
function named(toolId: string, tools: readonly CodexTool[]): CodexTool[] {
  return tools.filter((tool) => {
    const meta = tool._meta as { connector_id: string; _codex_apps: { resource_uri: string } };
    const app = encodeURIComponent(meta.connector_id);
    const action = meta._codex_apps.resource_uri.split('/')[3]!;
    return [tool.name, `${app}/${encodeURIComponent(tool.name)}`, `${app}/${action}`].includes(toolId);
  });
}

/** Whether the effective configuration lets `tool` of `app` run, by Codex's own resolution. */
function toolRuns(effective: CodexConfig, app: string, tool: CodexTool): boolean {
  const apps = (effective.apps ?? {}) as Record<string, Json>;
  const entry = apps[app];
  if (entry === undefined || entry.enabled !== true) return false;
  const defaults = (apps._default ?? {}) as Json;
  const toolEntry = ((entry.tools ?? {}) as Record<string, Json>)[tool.name] ?? {};
  const enabled = toolEntry.enabled ?? entry.default_tools_enabled ?? true;
  const destructive = (tool.annotations as Json).destructiveHint === true;
  const destructiveAllowed = entry.destructive_enabled ?? defaults.destructive_enabled ?? true;
  return enabled === true && (!destructive || destructiveAllowed === true);
}

/** The policy's answer for one tool: override → toolDefaults → on; a destructive tool is off without the category. */
function policyDisables(selection: PluginSelection, tool: CodexTool, tools: readonly CodexTool[]): boolean {
  const ids = Object.keys(selection.tools ?? {}).filter((toolId) => named(toolId, tools).some((found) => found.name === tool.name));
  const override = ids.map((toolId) => selection.tools![toolId]!.enabled).find((enabled) => enabled !== undefined);
  const destructive = (tool.annotations as Json).destructiveHint === true;
  return (override ?? selection.toolDefaults?.enabled ?? true) === false || (destructive && selection.driverPolicy?.destructiveEnabled === false);
}

describe('codex translator properties', () => {
  it('[X-2] [X-12] [X-18] [G-1] no selection lets a tool run that its policy, its state or its category keeps off', () => {
    let translated = 0;
    fc.assert(
      fc.property(codexScenarioArb, (scenario) => {
        const result = run(scenario);
        if (!result.ok) {
          for (const { path } of result.violations) expect(path === '' || parsePointer(path)[0] === 'plugins').toBe(true);
          return;
        }
        translated += 1;
        const tools = Object.values(scenario.inventory[0]!.tools) as CodexTool[];
        const activeApps = new Set(result.plan.rows.filter((row) => row.enabled && !scenario.failures.has(row.selectionKey)).flatMap((row) => row.apps));
        for (const row of result.plan.rows) {
          for (const app of row.apps) {
            for (const tool of tools.filter((found) => (found._meta as Json).connector_id === app)) {
              const runs = toolRuns(result.effective, app, tool);
              if (!activeApps.has(app)) expect(runs).toBe(false);
              else if (policyDisables(row.selection, tool, tools)) expect(runs).toBe(false);
            }
          }
        }
        // Nothing the plan does not name runs: every other app is off, and so is _default.
        const apps = (result.effective.apps ?? {}) as Record<string, Json>;
        for (const [app, entry] of Object.entries(apps)) {
          if (!activeApps.has(app)) expect(entry.enabled).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
    expect(translated).toBeGreaterThan(40);
  });

  it('[X-11] [X-13] [X-15] [X-16] [X-17] [X-19] the configuration the edits produce over any lower layers verifies', () => {
    fc.assert(
      fc.property(codexScenarioArb, (scenario) => {
        const result = run(scenario);
        if (!result.ok) return;
        const { artifact, effective } = result;
        expect(verifyCodexAppConfiguration({ artifact, effective })).toEqual([]);
        expect(verifyCodexReviewerConfiguration({ artifact, effective, requirements: null, model: null })).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('[G-3] is deterministic and never changes the requested selections or any other input', () => {
    fc.assert(
      fc.property(codexScenarioArb, (scenario) => {
        const before = structuredClone(scenario);
        const first = run(deepFreeze(scenario));
        expect(scenario).toEqual(before);
        expect(run(structuredClone(before))).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });
});

/** Frozen inputs make any write by the translator throw (modules run in strict mode). */
function deepFreeze<T>(value: T): T {
  if (value instanceof Map) {
    for (const [key, entry] of value) {
      deepFreeze(key);
      deepFreeze(entry);
    }
  } else if (value instanceof Set) {
    for (const entry of value) deepFreeze(entry);
  } else if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
