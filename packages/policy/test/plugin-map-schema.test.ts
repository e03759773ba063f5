import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ApproverListSchema, PluginMapSchema } from '@occ/contracts';

const AgentBodySchema = Type.Object({ plugins: Type.Optional(PluginMapSchema), pluginApprovers: Type.Optional(ApproverListSchema) }, { additionalProperties: false });

const errorPaths = (value: unknown) => [...Value.Errors(AgentBodySchema, value)].map((error) => error.path);

const fullSelection = {
  enabled: true,
  approvers: [{ channel: 'slack', id: 'U123' }],
  toolDefaults: { enabled: false, approval: 'none', reviewer: 'human' },
  tools: { 'app%2F1/read~x': { enabled: true, approval: 'all_actions', reviewer: 'auto', approvers: [] } },
  driverPolicy: { anything: { nested: true } },
};

describe('plugin map shape (TypeBox)', () => {
  it('[V-3] accepts a selection using every field', () => {
    expect(Value.Check(AgentBodySchema, { plugins: { 'openclaw:@scope/pkg': fullSelection }, pluginApprovers: [] })).toBe(true);
    expect(Value.Check(AgentBodySchema, { plugins: {} })).toBe(true);
  });

  it('[V-3] rejects unknown fields in a selection, tool policy and tool defaults at their pointers', () => {
    expect(errorPaths({ plugins: { diffs: { enabled: true, approvalMode: 'none' } } })).toContain('/plugins/diffs/approvalMode');
    expect(errorPaths({ plugins: { diffs: { enabled: true, tools: { t: { writes: true } } } } })).toContain('/plugins/diffs/tools/t/writes');
    expect(errorPaths({ plugins: { diffs: { enabled: true, toolDefaults: { destructive: true } } } })).toContain('/plugins/diffs/toolDefaults/destructive');
  });

  it('[V-3] rejects plugins: null and a non-object map', () => {
    expect(Value.Check(AgentBodySchema, { plugins: null })).toBe(false);
    expect(errorPaths({ plugins: null })).toContain('/plugins');
    expect(Value.Check(AgentBodySchema, { plugins: [] })).toBe(false);
  });

  it.each([
    ['a selection without enabled', { diffs: {} }],
    ['a non-boolean enabled', { diffs: { enabled: 'yes' } }],
    ['a plugin id with a space', { 'my plugin': { enabled: true } }],
    ['a plugin id longer than 253', { ['a'.repeat(254)]: { enabled: true } }],
    ['a tool id with whitespace', { diffs: { enabled: true, tools: { 'read file': { enabled: true } } } }],
    ['a tool id with a control character', { diffs: { enabled: true, tools: { 'a\u007f': { enabled: true } } } }],
    ['empty toolDefaults', { diffs: { enabled: true, toolDefaults: {} } }],
    ['an empty tool policy', { diffs: { enabled: true, tools: { t: {} } } }],
    ['a removed approval value', { diffs: { enabled: true, toolDefaults: { approval: 'prompt' } } }],
    ['an unknown reviewer', { diffs: { enabled: true, toolDefaults: { reviewer: 'robot' } } }],
    ['a null driverPolicy', { diffs: { enabled: true, driverPolicy: null } }],
  ])('[V-3] rejects %s', (_label, plugins) => {
    expect(Value.Check(PluginMapSchema, plugins)).toBe(false);
  });

  it('[V-3] bounds the map to 200 plugins and a tool map to 1000 tools', () => {
    const plugins = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { enabled: true }]));
    expect(Value.Check(PluginMapSchema, plugins(200))).toBe(true);
    expect(Value.Check(PluginMapSchema, plugins(201))).toBe(false);
    const tools = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${i}`, { enabled: true }]));
    expect(Value.Check(PluginMapSchema, { p: { enabled: true, tools: tools(1000) } })).toBe(true);
    expect(Value.Check(PluginMapSchema, { p: { enabled: true, tools: tools(1001) } })).toBe(false);
  });

  it.each([
    ['an uppercase channel', [{ channel: 'Slack', id: 'U1' }]],
    ['a channel longer than 32', [{ channel: `s${'a'.repeat(32)}`, id: 'U1' }]],
    ['an empty id', [{ channel: 'slack', id: '' }]],
    ['an id with a newline', [{ channel: 'slack', id: 'U1\n' }]],
    ['an id longer than 256', [{ channel: 'slack', id: 'U'.repeat(257) }]],
    ['an extra approver field', [{ channel: 'slack', id: 'U1', name: 'Ann' }]],
    ['65 approvers', Array.from({ length: 65 }, (_, i) => ({ channel: 'slack', id: `U${i}` }))],
  ])('[V-3] rejects approver lists with %s', (_label, approvers) => {
    expect(Value.Check(ApproverListSchema, approvers)).toBe(false);
  });

  it('[V-3] accepts 64 approvers with ids in any printable script', () => {
    const approvers = Array.from({ length: 64 }, (_, i) => ({ channel: 'slack', id: `Ü-${i} team:T1` }));
    expect(Value.Check(ApproverListSchema, approvers)).toBe(true);
  });
});
