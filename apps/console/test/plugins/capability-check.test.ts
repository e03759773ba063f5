import type { PluginPolicyCapabilities } from '@occ/contracts';
import { describe, expect, it } from 'vitest';
import { checkAgainstCapabilities } from '../../src/plugins/capability-check.ts';
import { sameApprovers } from '../../src/plugins/same-selections.ts';

// The shape of codex-hosted's capabilities (docs/plugin-policy.md): approvers at the Agent scope only.
const agentScopeOnly: PluginPolicyCapabilities = {
  driverId: 'codex-hosted',
  harness: 'codex',
  approval: { toolDefaults: ['provider_default', 'all_actions', 'write_actions', 'none'], tools: ['provider_default', 'all_actions', 'write_actions', 'none'] },
  reviewer: { toolDefaults: ['human', 'auto'], tools: [] },
  approvers: { agent: true, plugin: false, tool: false },
  driverPolicySchema: {},
};
const noAgentScope: PluginPolicyCapabilities = { ...agentScopeOnly, approvers: { agent: false, plugin: true, tool: true } };

describe('the pre-save check of the Agent-wide approvers (/pluginApprovers)', () => {
  it('accepts a list, [] and null where the Agent scope is supported', () => {
    expect(checkAgainstCapabilities({}, agentScopeOnly, [{ channel: 'slack', id: 'U1' }])).toEqual([]);
    expect(checkAgainstCapabilities({}, agentScopeOnly, [])).toEqual([]);
    expect(checkAgainstCapabilities({}, agentScopeOnly, null)).toEqual([]);
    expect(checkAgainstCapabilities({}, agentScopeOnly)).toEqual([]);
  });

  it('marks a repeated approver at its index, before any plugin refusal (the server order)', () => {
    const refusals = checkAgainstCapabilities({ 'codex:linear@openai': { enabled: true, approvers: [] } }, agentScopeOnly, [
      { channel: 'slack', id: 'U1' },
      { channel: 'slack', id: 'U1' },
    ]);
    expect(refusals).toEqual([
      { path: '/pluginApprovers/1', code: 'DUPLICATE_VALUE' },
      { path: '/plugins/codex:linear@openai/approvers', code: 'UNSUPPORTED_FIELD' },
    ]);
  });

  it('refuses any list, [] included, where the driver has no Agent scope; null is never refused', () => {
    expect(checkAgainstCapabilities({}, noAgentScope, [])).toEqual([{ path: '/pluginApprovers', code: 'UNSUPPORTED_FIELD' }]);
    expect(checkAgainstCapabilities({}, noAgentScope, null)).toEqual([]);
  });

  it('without a PluginDriver checks the selections only, as the server does', () => {
    expect(checkAgainstCapabilities({}, null, [{ channel: 'slack', id: 'U1' }])).toEqual([]);
  });
});

describe('sameApprovers', () => {
  it('tells none configured (null) from nobody ([]), and counts order', () => {
    expect(sameApprovers(null, null)).toBe(true);
    expect(sameApprovers(null, [])).toBe(false);
    const a = { channel: 'slack', id: 'U1' };
    const b = { channel: 'slack', id: 'U2' };
    expect(sameApprovers([a, b], [{ ...a }, { ...b }])).toBe(true);
    expect(sameApprovers([a, b], [b, a])).toBe(false);
  });
});
