import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApproverListSchema, PluginMapSchema, POLICY_VIOLATION_CODES } from '@occ/contracts';
import { codexHostedRules, openclawCuratedRules, parsePointer } from '../src/index.ts';
import { anyAgentApproversArb, anyPluginMapArb, capabilityBodyArb } from './arbitraries.ts';

const AgentBodySchema = Type.Object({
  plugins: PluginMapSchema,
  pluginApprovers: Type.Optional(ApproverListSchema),
});

/** True when every segment names an own property or an in-range array index of `body`. */
function resolves(body: unknown, path: string): boolean {
  let node = body;
  for (const segment of parsePointer(path)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return false;
      node = node[Number(segment)];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return false;
    }
  }
  return true;
}

describe.each([openclawCuratedRules, codexHostedRules])('$driverId validatePolicies properties', (rules) => {
  it('[V-3] [V-5] never throws on shape-valid maps and points every violation at an existing field', () => {
    fc.assert(
      fc.property(anyPluginMapArb, anyAgentApproversArb, (plugins, pluginApprovers) => {
        const body = pluginApprovers === undefined ? { plugins } : { plugins, pluginApprovers };
        expect(Value.Check(AgentBodySchema, body)).toBe(true);
        for (const violation of rules.validatePolicies(plugins, pluginApprovers)) {
          expect(resolves(body, violation.path), violation.path).toBe(true);
          expect(POLICY_VIOLATION_CODES).toContain(violation.code);
          expect(violation.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('[V-5] accepts every map built only from its advertised capabilities', () => {
    fc.assert(
      fc.property(capabilityBodyArb(rules), ({ plugins, pluginApprovers }) => {
        expect(Value.Check(AgentBodySchema, { plugins, pluginApprovers })).toBe(true);
        expect(rules.validatePolicies(plugins, pluginApprovers)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('[V-6] is deterministic: the same input always yields the same violations', () => {
    fc.assert(
      fc.property(anyPluginMapArb, anyAgentApproversArb, (plugins, pluginApprovers) => {
        const reversed = Object.fromEntries(Object.entries(plugins).reverse());
        expect(rules.validatePolicies(reversed, pluginApprovers)).toEqual(rules.validatePolicies(plugins, pluginApprovers));
      }),
      { numRuns: 100 },
    );
  });
});
