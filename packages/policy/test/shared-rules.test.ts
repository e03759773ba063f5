import { describe, expect, it } from 'vitest';
import type { PluginMap } from '@occ/contracts';
import { codexHostedRules, openclawCuratedRules, pluginPolicyRulesById, type PluginPolicyRules } from '../src/index.ts';

const slack = (id: string) => ({ channel: 'slack', id });

const aliasCases: Array<{ rules: PluginPolicyRules; keys: [string, string] }> = [
  { rules: openclawCuratedRules, keys: ['diffs', 'openclaw:diffs'] },
  { rules: openclawCuratedRules, keys: ['@scope/pkg', 'openclaw:@scope/pkg'] },
  { rules: codexHostedRules, keys: ['linear@m', 'codex:linear@m'] },
];

describe('rules shared by both plugin drivers', () => {
  it.each([openclawCuratedRules, codexHostedRules])('[V-5] $driverId rejects a duplicate Agent approver at its index', (rules) => {
    expect(rules.validatePolicies({}, [slack('U1'), slack('U2'), slack('U1'), slack('U1')])).toEqual([
      expect.objectContaining({ path: '/pluginApprovers/2', code: 'DUPLICATE_VALUE' }),
      expect.objectContaining({ path: '/pluginApprovers/3', code: 'DUPLICATE_VALUE' }),
    ]);
  });

  it.each([openclawCuratedRules, codexHostedRules])('$driverId accepts one id on two channels, and null or [] approvers', (rules) => {
    expect(rules.validatePolicies({}, [slack('U1'), { channel: 'teams', id: 'U1' }])).toEqual([]);
    expect(rules.validatePolicies({}, [])).toEqual([]);
    expect(rules.validatePolicies({}, null)).toEqual([]);
  });

  it('[V-5] rejects duplicates in plugin-level and tool-level lists where the driver supports them', () => {
    const plugins: PluginMap = {
      '@scope/pkg': { enabled: true, approvers: [slack('U1'), slack('U1')], tools: { 'x/y~z': { approvers: [slack('W'), slack('W')] } } },
    };
    expect(openclawCuratedRules.validatePolicies(plugins)).toEqual([
      expect.objectContaining({ path: '/plugins/@scope~1pkg/approvers/1', code: 'DUPLICATE_VALUE' }),
      expect.objectContaining({ path: '/plugins/@scope~1pkg/tools/x~1y~0z/approvers/1', code: 'DUPLICATE_VALUE' }),
    ]);
  });

  it.each(aliasCases)('[V-5] $rules.driverId rejects aliases $keys at the key that sorts later', ({ rules, keys }) => {
    const [first, second] = [...keys].sort() as [string, string];
    const expected = [expect.objectContaining({ path: `/plugins/${second.replace(/\//g, '~1')}`, code: 'DUPLICATE_PLUGIN' })];
    expect(rules.validatePolicies({ [first]: { enabled: true }, [second]: { enabled: false } })).toEqual(expected);
    expect(rules.validatePolicies({ [second]: { enabled: false }, [first]: { enabled: true } })).toEqual(expected);
    expect(rules.nativePluginId(first)).toBe(rules.nativePluginId(second));
  });

  it('[V-5] flags the later key of every aliased pair, in sorted key order', () => {
    const plugins: PluginMap = { 'codex:a@m': { enabled: true }, 'a@m': { enabled: true }, 'b@m': { enabled: true } };
    expect(codexHostedRules.validatePolicies({ ...plugins, 'codex:b@m': { enabled: true } }).map((v) => v.path)).toEqual(['/plugins/codex:a@m', '/plugins/codex:b@m']);
  });

  it('does not report aliases between keys that are already invalid', () => {
    expect(openclawCuratedRules.validatePolicies({ Bad: { enabled: true }, 'openclaw:Bad': { enabled: true } })).toEqual([
      expect.objectContaining({ path: '/plugins/Bad', code: 'INVALID_VALUE' }),
      expect.objectContaining({ path: '/plugins/openclaw:Bad', code: 'INVALID_VALUE' }),
    ]);
  });

  it('reports violations in the same order whatever the key order of the input', () => {
    const a = { enabled: true, toolDefaults: { reviewer: 'auto' as const } };
    const b = { enabled: true, tools: { z: { approval: 'all_actions' as const }, a: { reviewer: 'human' as const } } };
    const forward = openclawCuratedRules.validatePolicies({ 'p-a': a, 'p-b': b });
    expect(openclawCuratedRules.validatePolicies({ 'p-b': b, 'p-a': a })).toEqual(forward);
    expect(forward.map((v) => v.path)).toEqual(['/plugins/p-a/toolDefaults/reviewer', '/plugins/p-b/tools/a/reviewer', '/plugins/p-b/tools/z/approval']);
  });

  it.each([openclawCuratedRules, codexHostedRules])('$driverId messages never echo input values', (rules) => {
    const hostile = `x${'<script>'.repeat(8)}`;
    const plugins: PluginMap = {
      [`openclaw:${hostile}`]: {
        enabled: true,
        approvers: [slack(hostile), slack(hostile)],
        toolDefaults: { reviewer: 'auto', enabled: true },
        tools: { [hostile]: { reviewer: 'human', approval: 'all_actions', approvers: [] } },
        driverPolicy: { [hostile]: hostile, destructiveEnabled: hostile },
      },
    };
    const violations = rules.validatePolicies(plugins, [slack(hostile), slack(hostile)]);
    expect(violations.length).toBeGreaterThan(3);
    for (const { message } of violations) {
      expect(message).not.toContain('script');
      expect(message.length).toBeLessThanOrEqual(100);
    }
  });

  it('maps each driver id to rules whose identity matches their capabilities', () => {
    expect(Object.keys(pluginPolicyRulesById).sort()).toEqual(['codex-hosted', 'openclaw-curated']);
    for (const [driverId, rules] of Object.entries(pluginPolicyRulesById)) {
      expect(rules.driverId).toBe(driverId);
      expect(rules.capabilities.driverId).toBe(driverId);
      expect(rules.capabilities.harness).toBe(rules.harness);
    }
    expect(pluginPolicyRulesById['openclaw-curated'].harness).toBe('openclaw');
    expect(pluginPolicyRulesById['codex-hosted'].harness).toBe('codex');
  });
});
