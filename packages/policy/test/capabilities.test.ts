import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { APPROVAL_MODES, PluginPolicyCapabilitiesSchema, REVIEWERS, type PluginSelection } from '@occ/contracts';
import { codexHostedRules, openclawCuratedRules, pointer, type PluginPolicyRules } from '../src/index.ts';

const ALL_RULES = [openclawCuratedRules, codexHostedRules];
const KEY_BY_DRIVER = { 'openclaw-curated': '@scope/p', 'codex-hosted': 'codex:p@m' } as const;
const SCOPES = ['toolDefaults', 'tools'] as const;

type Scope = (typeof SCOPES)[number];

/** One selection with `control` set at `scope`, plus the pointer of that control. */
function withControl(rules: PluginPolicyRules, scope: Scope, control: 'approval' | 'reviewer', value: string) {
  const key = KEY_BY_DRIVER[rules.driverId];
  if (scope === 'toolDefaults') {
    const selection = { enabled: true, toolDefaults: { [control]: value } } as PluginSelection;
    return { plugins: { [key]: selection }, path: pointer('plugins', key, 'toolDefaults', control) };
  }
  const selection = { enabled: true, tools: { 'a/b': { [control]: value } } } as PluginSelection;
  return { plugins: { [key]: selection }, path: pointer('plugins', key, 'tools', 'a/b', control) };
}

describe('advertised plugin policy capabilities', () => {
  it.each(ALL_RULES)('$driverId capabilities satisfy PluginPolicyCapabilitiesSchema and are frozen', (rules) => {
    expect(Value.Check(PluginPolicyCapabilitiesSchema, rules.capabilities)).toBe(true);
    expect(Object.isFrozen(rules.capabilities.approval.tools)).toBe(true);
    expect(Object.isFrozen(rules)).toBe(true);
  });

  it('openclaw-curated advertises exactly its rules', () => {
    expect(openclawCuratedRules.capabilities).toEqual({
      driverId: 'openclaw-curated',
      harness: 'openclaw',
      approval: { toolDefaults: ['provider_default', 'none'], tools: ['provider_default', 'none'] },
      reviewer: { toolDefaults: [], tools: [] },
      approvers: { agent: true, plugin: true, tool: true },
      driverPolicySchema: { type: 'object', additionalProperties: false, properties: {}, maxProperties: 0 },
    });
  });

  it('codex-hosted advertises exactly its rules', () => {
    expect(codexHostedRules.capabilities).toEqual({
      driverId: 'codex-hosted',
      harness: 'codex',
      approval: { toolDefaults: [...APPROVAL_MODES], tools: [...APPROVAL_MODES] },
      reviewer: { toolDefaults: ['human', 'auto'], tools: [] },
      approvers: { agent: true, plugin: false, tool: false },
      driverPolicySchema: { type: 'object', additionalProperties: false, properties: { destructiveEnabled: { type: 'boolean' } } },
    });
  });

  describe.each(ALL_RULES)('validatePolicies of $driverId agrees with its capabilities', (rules) => {
    const { capabilities } = rules;
    const key = KEY_BY_DRIVER[rules.driverId];

    it.each(SCOPES.flatMap((scope) => APPROVAL_MODES.map((mode) => [scope, mode] as const)))('[V-5] approval at %s = %s', (scope, mode) => {
      const { plugins, path } = withControl(rules, scope, 'approval', mode);
      const expected = capabilities.approval[scope].includes(mode) ? [] : [expect.objectContaining({ path, code: 'UNSUPPORTED_VALUE' })];
      expect(rules.validatePolicies(plugins)).toEqual(expected);
    });

    it.each(SCOPES.flatMap((scope) => REVIEWERS.map((reviewer) => [scope, reviewer] as const)))('[V-5] reviewer at %s = %s', (scope, reviewer) => {
      const { plugins, path } = withControl(rules, scope, 'reviewer', reviewer);
      const allowed = capabilities.reviewer[scope];
      const code = allowed.length === 0 ? 'UNSUPPORTED_FIELD' : 'UNSUPPORTED_VALUE';
      expect(rules.validatePolicies(plugins)).toEqual(allowed.includes(reviewer) ? [] : [expect.objectContaining({ path, code })]);
    });

    it('[V-5] approvers at agent, plugin and tool scope', () => {
      const list = [{ channel: 'slack', id: 'U1' }];
      const unsupported = (supported: boolean, path: string) => (supported ? [] : [expect.objectContaining({ path, code: 'UNSUPPORTED_FIELD' })]);
      expect(rules.validatePolicies({}, list)).toEqual(unsupported(capabilities.approvers.agent, '/pluginApprovers'));
      expect(rules.validatePolicies({ [key]: { enabled: true, approvers: list } })).toEqual(unsupported(capabilities.approvers.plugin, pointer('plugins', key, 'approvers')));
      expect(rules.validatePolicies({ [key]: { enabled: true, tools: { t: { approvers: list } } } })).toEqual(
        unsupported(capabilities.approvers.tool, pointer('plugins', key, 'tools', 't', 'approvers')),
      );
    });

    it('[V-5] driverPolicy follows driverPolicySchema', () => {
      const schema = capabilities.driverPolicySchema as { properties: Record<string, { type: string }> };
      const policyPath = pointer('plugins', key, 'driverPolicy');
      for (const [field, { type }] of Object.entries(schema.properties)) {
        expect(type).toBe('boolean');
        for (const value of [true, false]) {
          expect(rules.validatePolicies({ [key]: { enabled: true, driverPolicy: { [field]: value } } })).toEqual([]);
        }
        expect(rules.validatePolicies({ [key]: { enabled: true, driverPolicy: { [field]: 'yes' } } })).toEqual([
          expect.objectContaining({ path: `${policyPath}/${field}`, code: 'INVALID_VALUE' }),
        ]);
      }
      const unknown = rules.validatePolicies({ [key]: { enabled: true, driverPolicy: { unknownField: true } } });
      expect(unknown).toHaveLength(1);
      expect(unknown[0]).toMatchObject({ code: 'UNSUPPORTED_FIELD' });
      expect(unknown[0]!.path.startsWith(policyPath)).toBe(true);
    });
  });
});
