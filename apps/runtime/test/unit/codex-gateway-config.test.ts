import { codexRuntimeArtifact, type CodexBridgeConfig } from '@occ/policy';
import { describe, expect, it } from 'vitest';
import { APP_SERVER_TOKEN_VARIABLE, codexGatewayConfig, codexGatewayOverlay, findCodexGatewayConflicts } from '../../src/codex/gateway-config.ts';

const bridge: CodexBridgeConfig = codexRuntimeArtifact({
  plan: {
    rows: [
      { selectionKey: 'codex:good@m', selection: { enabled: true }, nativeId: 'good@m', pluginName: 'good', marketplaceName: 'm', version: '1.0.0', apps: [], enabled: true },
      { selectionKey: 'codex:bad@m', selection: { enabled: true }, nativeId: 'bad@m', pluginName: 'bad', marketplaceName: 'm', version: '1.0.0', apps: [], enabled: true },
    ],
  },
  toolSettings: new Map(),
  failures: new Set(['codex:bad@m']),
}).bridge;

describe('the Codex gateway configuration', () => {
  it("[X-1] [G-1] [G-3] keeps the operator's settings, points the harness at the app-server with the credential as an env reference, and carries the bridge", () => {
    const base = {
      gateway: { mode: 'local' },
      plugins: { allow: ['codex', 'memory'], entries: { codex: { config: { appServer: { requestTimeoutMs: 90_000 } } }, memory: { enabled: true } } },
    };
    const frozen = structuredClone(base);
    const config = codexGatewayConfig({ base, bridge, appServerUrl: 'ws://127.0.0.1:4242' });
    expect(base).toEqual(frozen);
    expect(config).toEqual({
      gateway: { mode: 'local' },
      // Turns run through the harness on its model, with no fallback to another runtime or model.
      agents: { defaults: { model: { primary: 'openai/gpt-5.5', fallbacks: [] }, models: { 'openai/gpt-5.5': { agentRuntime: { id: 'codex' } } } } },
      plugins: {
        allow: ['codex', 'memory'],
        entries: {
          memory: { enabled: true },
          codex: {
            enabled: true,
            config: {
              appServer: { requestTimeoutMs: 90_000, transport: 'websocket', url: 'ws://127.0.0.1:4242', authToken: `\${${APP_SERVER_TOKEN_VARIABLE}}` },
              codexPlugins: {
                enabled: true,
                allow_all_plugins: false,
                plugins: {
                  'good@m': { enabled: true, marketplaceName: 'm', pluginName: 'good', allow_destructive_actions: 'auto' },
                  'bad@m': { enabled: false, marketplaceName: 'm', pluginName: 'bad', allow_destructive_actions: 'auto' },
                },
              },
            },
          },
        },
      },
    });
    expect(JSON.stringify(config)).not.toMatch(/[0-9a-f]{64}/);
    expect(codexGatewayOverlay(config)).toEqual({
      plugins: {
        entries: {
          codex: {
            enabled: true,
            config: { codexPlugins: (config.plugins as any).entries.codex.config.codexPlugins, appServer: { transport: 'websocket', url: 'ws://127.0.0.1:4242' } },
          },
        },
      },
      agents: { defaults: { model: { primary: 'openai/gpt-5.5', fallbacks: [] }, models: { 'openai/gpt-5.5': { agentRuntime: { id: 'codex' } } } } },
    });
  });

  it('a Codex model the Configuration names is kept, with its other settings, and pinned to the harness', () => {
    const base = { agents: { defaults: { model: { primary: 'openai/gpt-5.4', timeoutSeconds: 30 }, models: { 'openai/gpt-5.4': { alias: 'fast' } } } } };
    expect(findCodexGatewayConflicts(base)).toEqual([]);
    expect(codexGatewayConfig({ base, bridge, appServerUrl: 'ws://127.0.0.1:1' }).agents).toEqual({
      defaults: { model: { primary: 'openai/gpt-5.4', timeoutSeconds: 30, fallbacks: [] }, models: { 'openai/gpt-5.4': { alias: 'fast', agentRuntime: { id: 'codex' } } } },
    });
  });

  it.each([
    ['the plugin system off', { plugins: { enabled: false } }, '/plugins/enabled'],
    ['codex denied', { plugins: { deny: [' Codex '] } }, '/plugins/deny'],
    ['an allowlist without codex', { plugins: { allow: ['memory'] } }, '/plugins/allow'],
    ['codex disabled', { plugins: { entries: { codex: { enabled: false } } } }, '/plugins/entries/codex/enabled'],
    ['a bridge of its own', { plugins: { entries: { codex: { config: { codexPlugins: { allow_all_plugins: true } } } } } }, '/plugins/entries/codex/config/codexPlugins'],
    ['its own app-server', { plugins: { entries: { codex: { config: { appServer: { url: 'ws://elsewhere:1' } } } } } }, '/plugins/entries/codex/config/appServer/url'],
    ['a model Codex does not run', { agents: { defaults: { model: 'anthropic/claude-opus' } } }, '/agents/defaults/model'],
    ['model fallbacks', { agents: { defaults: { model: { primary: 'openai/gpt-5.5', fallbacks: ['ollama/llama3'] } } } }, '/agents/defaults/model/fallbacks'],
    [
      'a runtime of its own for the model',
      { agents: { defaults: { models: { 'openai/gpt-5.5': { agentRuntime: { id: 'pi' } } } } } },
      '/agents/defaults/models/openai~1gpt-5.5/agentRuntime',
    ],
    ['settings of OpenClaw’s own openai provider', { models: { providers: { openai: { baseUrl: 'http://elsewhere/v1' } } } }, '/models/providers/openai'],
  ])('a Configuration with %s conflicts (never silently overridden)', (_, base, path) => {
    expect(findCodexGatewayConflicts(base).map((found) => found.path)).toEqual([path]);
  });

  it('a Configuration that leaves the harness alone has no conflict', () => {
    expect(findCodexGatewayConflicts({ plugins: { allow: [], entries: { codex: { config: { appServer: { requestTimeoutMs: 1 } } } } } })).toEqual([]);
  });
});
