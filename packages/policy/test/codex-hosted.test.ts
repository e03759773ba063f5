import { describe, expect, it } from 'vitest';
import { APPROVAL_MODES, type PluginMap } from '@occ/contracts';
import { codexHostedRules as rules } from '../src/index.ts';

const KEY = 'linear@openai-curated-remote';
const validate = (plugins: PluginMap, approvers?: Parameters<typeof rules.validatePolicies>[1]) => rules.validatePolicies(plugins, approvers);

describe('codex-hosted plugin policy', () => {
  it.each(APPROVAL_MODES)('[V-5] accepts approval %s at toolDefaults and tools', (approval) => {
    expect(validate({ [KEY]: { enabled: true, toolDefaults: { approval }, tools: { 'app/t': { approval } } } })).toEqual([]);
  });

  it.each(['human', 'auto'] as const)('[V-5] accepts reviewer %s at toolDefaults', (reviewer) => {
    expect(validate({ [KEY]: { enabled: true, toolDefaults: { reviewer } } })).toEqual([]);
  });

  it('[V-5] codex-hosted rejects a tool-level reviewer at its pointer', () => {
    expect(validate({ [KEY]: { enabled: true, tools: { 'app/send~mail': { reviewer: 'human' } } } })).toEqual([
      expect.objectContaining({ path: `/plugins/${KEY}/tools/app~1send~0mail/reviewer`, code: 'UNSUPPORTED_FIELD' }),
    ]);
  });

  it('[V-5] accepts Agent-wide approvers', () => {
    expect(validate({ [KEY]: { enabled: true } }, [{ channel: 'slack', id: 'U1' }])).toEqual([]);
  });

  it('[V-5] rejects plugin-level and tool-level approvers, even empty ones', () => {
    const plugins: PluginMap = { [KEY]: { enabled: true, approvers: [], tools: { t: { approvers: [{ channel: 'slack', id: 'U1' }] } } } };
    expect(validate(plugins)).toEqual([
      expect.objectContaining({ path: `/plugins/${KEY}/approvers`, code: 'UNSUPPORTED_FIELD' }),
      expect.objectContaining({ path: `/plugins/${KEY}/tools/t/approvers`, code: 'UNSUPPORTED_FIELD' }),
    ]);
  });

  it.each([{}, { destructiveEnabled: true }, { destructiveEnabled: false }])('accepts driverPolicy %j', (driverPolicy) => {
    expect(validate({ [KEY]: { enabled: true, driverPolicy } })).toEqual([]);
  });

  it('[V-5] rejects unknown driverPolicy fields at their escaped pointers', () => {
    expect(validate({ [KEY]: { enabled: true, driverPolicy: { 'a/b': true, writes: false } } })).toEqual([
      expect.objectContaining({ path: `/plugins/${KEY}/driverPolicy/a~1b`, code: 'UNSUPPORTED_FIELD' }),
      expect.objectContaining({ path: `/plugins/${KEY}/driverPolicy/writes`, code: 'UNSUPPORTED_FIELD' }),
    ]);
  });

  it.each(['true', 1, null, {}])('[V-5] rejects destructiveEnabled %j as INVALID_VALUE', (value) => {
    expect(validate({ [KEY]: { enabled: true, driverPolicy: { destructiveEnabled: value } } })).toEqual([
      expect.objectContaining({ path: `/plugins/${KEY}/driverPolicy/destructiveEnabled`, code: 'INVALID_VALUE' }),
    ]);
  });

  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])('[V-5] rejects toolDefaults.enabled %j combined with destructiveEnabled %j', (enabled, destructiveEnabled) => {
    const plugins: PluginMap = { [KEY]: { enabled: true, toolDefaults: { enabled }, driverPolicy: { destructiveEnabled } } };
    expect(validate(plugins)).toEqual([expect.objectContaining({ path: `/plugins/${KEY}/toolDefaults/enabled`, code: 'INVALID_COMBINATION' })]);
  });

  it('accepts toolDefaults.enabled without destructiveEnabled, and destructiveEnabled with other defaults', () => {
    expect(validate({ [KEY]: { enabled: true, toolDefaults: { enabled: false }, driverPolicy: {} } })).toEqual([]);
    const plugins: PluginMap = { [KEY]: { enabled: true, toolDefaults: { approval: 'none' }, driverPolicy: { destructiveEnabled: true } } };
    expect(validate(plugins)).toEqual([]);
  });

  it.each([KEY, `codex:${KEY}`, 'Linear.v2_x-y@m', `${'s'.repeat(200)}@m`])('accepts the selection key %j', (key) => {
    expect(validate({ [key]: { enabled: true } })).toEqual([]);
  });

  it.each(['linear', 'codex:', '@openai', 'linear@', 'linear@Market', 'a@b@c', '-x@m', `${'s'.repeat(201)}@m`, 'openclaw:x@m', 'x/y@m'])('rejects the selection key %j', (key) => {
    expect(validate({ [key]: { enabled: true } })).toEqual([expect.objectContaining({ path: `/plugins/${key.replace(/\//g, '~1')}`, code: 'INVALID_VALUE' })]);
  });

  it('names the native plugin without the optional codex: prefix', () => {
    expect(rules.nativePluginId(`codex:${KEY}`)).toBe(KEY);
    expect(rules.nativePluginId(KEY)).toBe(KEY);
  });

  it('[V-5] reports every violation at once, not only the first', () => {
    const plugins: PluginMap = {
      [KEY]: {
        enabled: true,
        approvers: [],
        toolDefaults: { enabled: true },
        tools: { t: { reviewer: 'auto' } },
        driverPolicy: { destructiveEnabled: 'yes', extra: 1 },
      },
    };
    expect(validate(plugins).map((v) => [v.path.slice(`/plugins/${KEY}`.length), v.code])).toEqual([
      ['/approvers', 'UNSUPPORTED_FIELD'],
      ['/tools/t/reviewer', 'UNSUPPORTED_FIELD'],
      ['/driverPolicy/destructiveEnabled', 'INVALID_VALUE'],
      ['/driverPolicy/extra', 'UNSUPPORTED_FIELD'],
      ['/toolDefaults/enabled', 'INVALID_COMBINATION'],
    ]);
  });
});
