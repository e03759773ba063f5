import { describe, expect, it } from 'vitest';
import type { PluginMap } from '@occ/contracts';
import {
  configurationChosenPlugins,
  isUnselectedPluginsMode,
  openclawCuratedCatalog,
  translateOpenClawPolicy,
  verifyEffectiveConfig,
  type OpenClawCatalog,
  type OpenClawCatalogPlugin,
  type OpenClawConfig,
} from '../src/index.ts';

// "Only what was selected" (docs/plugin-policy.md): bundled plugins that could give the agent
// tools and that nobody selected are turned off, unless the Installation keeps OpenClaw's own
// defaults (`keep`) or the Configuration itself turns them on.
const RUNTIME = '2026.9.5';

function plugin(pluginId: string, tools: string[] | null, source: OpenClawCatalogPlugin['source'] = 'bundled'): OpenClawCatalogPlugin {
  const npm = source === 'npm';
  return {
    id: npm ? `@acme/${pluginId}` : pluginId,
    pluginId,
    name: pluginId,
    description: `The ${pluginId} plugin.`,
    source,
    package: npm ? `@acme/${pluginId}` : 'openclaw',
    version: npm ? '1.0.0' : RUNTIME,
    integrity: `sha512-${pluginId}`,
    tools,
  };
}

const catalog: OpenClawCatalog = {
  runtime: { package: 'openclaw', version: RUNTIME, integrity: 'sha512-runtime' },
  plugins: [
    plugin('npm-tools', ['npm_tool'], 'npm'),
    plugin('browser', ['browser']),
    plugin('canvas', ['canvas']),
    plugin('file-transfer', ['file_fetch', 'file_write']),
    plugin('github', []),
    plugin('memory-core', ['memory_get']),
    plugin('ollama', ['node_inference']),
    plugin('openai', []),
    plugin('telegram', null),
  ],
};

function translate(selections: PluginMap, baseConfig: OpenClawConfig = {}, unselectedPlugins?: 'disable' | 'keep') {
  return translateOpenClawPolicy({ catalog, selections, baseConfig, ...(unselectedPlugins ? { unselectedPlugins } : {}) });
}

const denyOf = (config: OpenClawConfig) => ((config.plugins ?? {}) as { deny?: string[] }).deny;

describe('unselected bundled tool plugins', () => {
  it('[N-1][N-5] by default denies every bundled plugin with tools (or unknown tools) that no selection names, in config and overlay', () => {
    const { config, overlay, unselectedDisabled } = translate({ browser: { enabled: true }, canvas: { enabled: false } });
    expect(unselectedDisabled).toEqual(['file-transfer', 'memory-core', 'ollama', 'telegram']);
    // Plugins without tools (github, openai) and npm plugins nobody installs are not touched.
    expect(config.plugins).toEqual({
      entries: { browser: { enabled: true }, canvas: { enabled: false } },
      deny: ['file-transfer', 'memory-core', 'ollama', 'telegram'],
    });
    expect(overlay.plugins).toEqual(config.plugins);
    expect(config.tools).toEqual({ alsoAllow: ['browser'] });
  });

  it('applies without any selection too: an Agent with an empty plugin map gets no plugin tools', () => {
    const { unselectedDisabled } = translate({});
    expect(unselectedDisabled).toEqual(['browser', 'canvas', 'file-transfer', 'memory-core', 'ollama', 'telegram']);
  });

  it('a Configuration with a non-empty plugins.allow already chose every plugin that may load: nothing is denied', () => {
    const { config, overlay, unselectedDisabled } = translate({ browser: { enabled: true } }, { plugins: { allow: ['browser', 'memory-core'] } });
    expect(unselectedDisabled).toEqual([]);
    expect(config.plugins).toEqual({ allow: ['browser', 'memory-core'], entries: { browser: { enabled: true } } });
    expect(overlay.plugins).toEqual({ entries: { browser: { enabled: true } } });
    // An empty allow list allows everything: the rule applies.
    expect(translate({}, { plugins: { allow: [] } }).unselectedDisabled).toEqual(['browser', 'canvas', 'file-transfer', 'memory-core', 'ollama', 'telegram']);
  });

  it('`keep` leaves OpenClaw’s defaults alone', () => {
    const { config, overlay, unselectedDisabled } = translate({ browser: { enabled: true } }, {}, 'keep');
    expect(unselectedDisabled).toEqual([]);
    expect(config.plugins).toEqual({ entries: { browser: { enabled: true } } });
    expect(overlay.plugins).toEqual({ entries: { browser: { enabled: true } } });
  });

  it('keeps what the Configuration itself turns on: an explicit entry, plugins.allow, a channel, a model provider, a model reference', () => {
    const cases: Array<[OpenClawConfig, string]> = [
      [{ plugins: { entries: { 'memory-core': { enabled: true } } } }, 'memory-core'],
      [{ plugins: { allow: ['browser', 'canvas', 'File-Transfer'] } }, 'file-transfer'],
      [{ channels: { telegram: { botToken: '${TELEGRAM_TOKEN}' } } }, 'telegram'],
      [{ models: { providers: { ollama: { baseUrl: 'http://127.0.0.1:11434' } } } }, 'ollama'],
      [{ agents: { defaults: { model: 'ollama/qwen3' } } }, 'ollama'],
      [{ agents: { defaults: { model: { primary: 'openai/gpt-5', fallbacks: ['ollama/qwen3'] } } } }, 'ollama'],
      [{ agents: { list: [{ id: 'main', model: { primary: 'ollama/qwen3' } }] } }, 'ollama'],
    ];
    for (const [base, kept] of cases) {
      const { config, unselectedDisabled } = translate({ browser: { enabled: true }, canvas: { enabled: true } }, base);
      expect(unselectedDisabled, JSON.stringify(base)).not.toContain(kept);
      expect(denyOf(config) ?? [], JSON.stringify(base)).not.toContain(kept);
    }
  });

  it('keeps the Configuration’s own denies and entries (a configured but not enabled entry is no choice), and never mutates the base', () => {
    const base = { plugins: { deny: ['OLLAMA', 'zoom'], entries: { 'memory-core': { config: { dreaming: { enabled: true } } }, ollama: { enabled: false } } } };
    const snapshot = structuredClone(base);
    const { config, overlay } = translate({}, base);
    expect(base).toEqual(snapshot);
    expect(config.plugins).toEqual({
      deny: ['OLLAMA', 'zoom', 'browser', 'canvas', 'file-transfer', 'memory-core', 'telegram'],
      entries: { 'memory-core': { config: { dreaming: { enabled: true } } }, ollama: { enabled: false } },
    });
    // The overlay verifies what the translation adds; `OLLAMA` is the Configuration's own deny already.
    expect(denyOf(overlay)).toEqual(['browser', 'canvas', 'file-transfer', 'memory-core', 'telegram']);
    expect(verifyEffectiveConfig(JSON.parse(JSON.stringify(config)), overlay)).toEqual([]);
    expect(configurationChosenPlugins(base)).toEqual(new Set());
  });

  it('[N-6] the effective configuration must keep them off: an unselected plugin missing from the deny list is a verification mismatch', () => {
    const { config, overlay } = translate({ browser: { enabled: true } });
    const effective = JSON.parse(JSON.stringify(config)) as OpenClawConfig;
    expect(verifyEffectiveConfig(effective, overlay)).toEqual([]);
    (effective.plugins as { deny: string[] }).deny = denyOf(effective)!.filter((id) => id !== 'file-transfer');
    expect(verifyEffectiveConfig(effective, overlay)).toEqual(['/plugins/deny']);
  });

  it('on the pinned runtime’s catalog, selecting browser and canvas turns off exactly the other bundled tool plugins', () => {
    const { unselectedDisabled } = translateOpenClawPolicy({
      catalog: openclawCuratedCatalog(),
      selections: { 'openclaw:browser': { enabled: true }, 'openclaw:canvas': { enabled: true } },
      baseConfig: {},
    });
    expect(unselectedDisabled).toEqual([
      'a2a',
      'file-transfer',
      'llm-task',
      'memory-core',
      'memory-wiki',
      'ollama',
      'onepassword',
      'reef',
      'talk-voice',
      'telegram',
      'workboard',
      'xai',
    ]);
    // The plugins the issue found enabled without tools of their own stay as OpenClaw runs them.
    for (const toolless of ['crabbox', 'cua-computer', 'linux-node', 'device-pair', 'openai', 'anthropic']) expect(unselectedDisabled).not.toContain(toolless);
  });

  it('accepts only the two setting values', () => {
    expect(['disable', 'keep'].every(isUnselectedPluginsMode)).toBe(true);
    expect([undefined, '', 'Disable', 'off', 1].some(isUnselectedPluginsMode)).toBe(false);
  });
});
