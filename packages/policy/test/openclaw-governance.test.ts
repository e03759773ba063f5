import { describe, expect, it } from 'vitest';
import { GOVERNANCE_TOOLS, governanceDenials, openclawCuratedCatalog, translateOpenClawPolicy, verifyEffectiveConfig } from '../src/index.ts';

// The agent cannot rewrite its own governance (docs/security.md): OpenClaw's core tools that
// install plugins, change configuration, handle secrets, write skills or schedule work are denied
// unless the Configuration grants one by name.
const catalog = openclawCuratedCatalog();

describe('governance tools', () => {
  it('are all denied when the Configuration grants none of them', () => {
    expect(governanceDenials({})).toEqual(['plugins', 'openclaw', 'gateway', 'secrets', 'skill_workshop', 'automations']);
    expect(GOVERNANCE_TOOLS).toEqual(governanceDenials({ tools: { allow: [] } }));
  });

  it('a tool the Configuration names in tools.allow or tools.alsoAllow stays granted (the operator decides)', () => {
    expect(governanceDenials({ tools: { allow: ['read', 'Automations'] } })).not.toContain('automations');
    expect(governanceDenials({ tools: { alsoAllow: ['secrets'] } })).toEqual(GOVERNANCE_TOOLS.filter((name) => name !== 'secrets'));
  });

  it('[N-2] the translation adds them after the Configuration’s own denies, once, and its verification holds them', () => {
    const { config, overlay } = translateOpenClawPolicy({ catalog, selections: {}, baseConfig: { tools: { deny: ['exec', 'gateway'] } }, governance: true });
    expect((config.tools as { deny: string[] }).deny).toEqual(['exec', 'gateway', 'plugins', 'openclaw', 'secrets', 'skill_workshop', 'automations']);
    expect(verifyEffectiveConfig(config, overlay)).toEqual([]);
    // An effective configuration without them (the agent edited its file) fails verification.
    expect(verifyEffectiveConfig({ ...config, tools: { deny: ['exec'] } }, overlay).length).toBeGreaterThan(0);
  });

  it('without the governance option the translation is the policy alone', () => {
    const { config } = translateOpenClawPolicy({ catalog, selections: {}, baseConfig: { tools: { deny: ['exec'] } } });
    expect((config.tools as { deny: string[] }).deny).toEqual(['exec']);
  });
});
