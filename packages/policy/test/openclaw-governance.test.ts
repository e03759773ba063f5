import { describe, expect, it } from 'vitest';
import { GOVERNANCE_TOOLS, governanceDenials, OFFICIAL_EXTERNAL_PLUGIN_IDS, openclawCuratedCatalog, translateOpenClawPolicy, verifyEffectiveConfig } from '../src/index.ts';

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

// The gateway installs nothing by itself: at every start OpenClaw installs, from npm or ClawHub,
// any official plugin it does not ship that it finds "configured" (a provider's key variable such
// as MODEL_API_KEY in its environment is enough). Each one nobody selected is turned off.
describe('official external plugins the gateway would install by itself', () => {
  it('matches the pinned OpenClaw’s own catalog (regenerate with scripts/generate-openclaw-external-plugins.ts)', async () => {
    const { readOfficialExternalPluginIds } = await import('../../../scripts/generate-openclaw-external-plugins.ts');
    expect([...OFFICIAL_EXTERNAL_PLUGIN_IDS]).toEqual(await readOfficialExternalPluginIds());
    expect(OFFICIAL_EXTERNAL_PLUGIN_IDS).toEqual(expect.arrayContaining(['meta', 'discord', 'mistral', 'codex']));
  });

  it('are all turned off when nobody selected them, and the verification holds it', () => {
    const { config, overlay } = translateOpenClawPolicy({ catalog, selections: {}, baseConfig: {}, governance: true });
    const entries = (config.plugins as { entries: Record<string, { enabled: boolean }> }).entries;
    for (const pluginId of OFFICIAL_EXTERNAL_PLUGIN_IDS) expect(entries[pluginId], pluginId).toEqual({ enabled: false });
    expect(verifyEffectiveConfig(config, overlay)).toEqual([]);
    // The agent turns Meta back on in its file: verification fails.
    const edited = structuredClone(config) as { plugins: { entries: Record<string, { enabled: boolean }> } };
    edited.plugins.entries.meta = { enabled: true };
    expect(verifyEffectiveConfig(edited, overlay).length).toBeGreaterThan(0);
  });

  it('a selected one is installed by OCC and enabled; one the Configuration sets an entry for is the operator’s', () => {
    const { config } = translateOpenClawPolicy({
      catalog,
      selections: { 'openclaw:@openclaw/discord': { enabled: true } },
      baseConfig: { plugins: { entries: { mistral: { enabled: true, config: {} } } } },
      governance: true,
    });
    const entries = (config.plugins as { entries: Record<string, { enabled: boolean }> }).entries;
    expect(entries.discord).toEqual({ enabled: true });
    expect(entries.mistral).toEqual({ enabled: true, config: {} });
    expect(entries.meta).toEqual({ enabled: false });
  });

  it('without the governance option nothing is added', () => {
    const { config } = translateOpenClawPolicy({ catalog, selections: {}, baseConfig: {} });
    expect((config.plugins as { entries?: unknown }).entries).toBeUndefined();
  });
});
