import { describe, expect, it } from 'vitest';
import type { PluginMap } from '@occ/contracts';
import { openclawCuratedRules as rules } from '../src/index.ts';

const validate = (plugins: PluginMap, approvers?: Parameters<typeof rules.validatePolicies>[1]) => rules.validatePolicies(plugins, approvers);

describe('openclaw-curated plugin policy', () => {
  it('[V-5] accepts provider_default and none at toolDefaults and tools', () => {
    for (const approval of ['provider_default', 'none'] as const) {
      expect(validate({ diffs: { enabled: true, toolDefaults: { approval }, tools: { diffs: { approval } } } })).toEqual([]);
    }
  });

  it.each(['all_actions', 'write_actions'] as const)('[V-5] rejects approval %s at both scopes at its pointer', (approval) => {
    const violations = validate({ diffs: { enabled: true, toolDefaults: { approval }, tools: { diffs: { approval } } } });
    expect(violations).toEqual([
      expect.objectContaining({ path: '/plugins/diffs/toolDefaults/approval', code: 'UNSUPPORTED_VALUE' }),
      expect.objectContaining({ path: '/plugins/diffs/tools/diffs/approval', code: 'UNSUPPORTED_VALUE' }),
    ]);
  });

  it.each(['human', 'auto'] as const)('[V-5] rejects reviewer %s at toolDefaults and tool scope', (reviewer) => {
    const violations = validate({ diffs: { enabled: true, toolDefaults: { reviewer }, tools: { diffs: { reviewer } } } });
    expect(violations).toEqual([
      expect.objectContaining({ path: '/plugins/diffs/toolDefaults/reviewer', code: 'UNSUPPORTED_FIELD' }),
      expect.objectContaining({ path: '/plugins/diffs/tools/diffs/reviewer', code: 'UNSUPPORTED_FIELD' }),
    ]);
  });

  it.each([{}, { destructiveEnabled: true }])('[V-5] rejects driverPolicy %j as a whole', (driverPolicy) => {
    expect(validate({ diffs: { enabled: true, driverPolicy } })).toEqual([expect.objectContaining({ path: '/plugins/diffs/driverPolicy', code: 'UNSUPPORTED_FIELD' })]);
  });

  it('accepts approvers at agent, plugin and tool scope, including [] (nobody)', () => {
    const approvers = [{ channel: 'slack', id: 'U1' }];
    const plugins: PluginMap = { diffs: { enabled: true, approvers, tools: { diffs: { approvers: [] } } } };
    expect(validate(plugins, approvers)).toEqual([]);
  });

  it.each(['diffs', 'openclaw:diffs', '@openclaw/diffs', 'openclaw:@openclaw/diffs', 'my.plugin_v2-x'])('accepts the selection key %j', (key) => {
    expect(validate({ [key]: { enabled: true } })).toEqual([]);
  });

  it.each([
    ['Diffs', '/plugins/Diffs'],
    ['openclaw:', '/plugins/openclaw:'],
    ['@scope', '/plugins/@scope'],
    ['a/b', '/plugins/a~1b'],
    ['@scope/pkg/extra', '/plugins/@scope~1pkg~1extra'],
    ['openclaw:openclaw:diffs', '/plugins/openclaw:openclaw:diffs'],
    ['codex:linear@openai-curated-remote', '/plugins/codex:linear@openai-curated-remote'],
    ['a~b', '/plugins/a~0b'],
  ])('rejects the selection key %j at %s', (key, path) => {
    expect(validate({ [key]: { enabled: true } })).toEqual([expect.objectContaining({ path, code: 'INVALID_VALUE' })]);
  });

  it('names the native plugin without the optional openclaw: prefix', () => {
    expect(rules.nativePluginId('openclaw:@scope/pkg')).toBe('@scope/pkg');
    expect(rules.nativePluginId('@scope/pkg')).toBe('@scope/pkg');
    expect(rules.nativePluginId('codex:x@y')).toBe('codex:x@y');
  });

  it('[V-6] accepts a well-formed plugin and tool that no catalog was asked about', () => {
    const plugins: PluginMap = { 'openclaw:@nobody/unpublished': { enabled: true, tools: { 'never-declared': { enabled: false } } } };
    expect(validate(plugins)).toEqual([]);
  });
});
