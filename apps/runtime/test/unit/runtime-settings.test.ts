import { describe, expect, it } from 'vitest';
import { OPENCLAW_LOG_MAX_BYTES, withRuntimeSettings } from '../../src/revision-config.ts';

describe('the settings the runtime adds to every revision’s OpenClaw configuration', () => {
  it('keeps OpenClaw’s log in the Agent’s state, bounded, with no update check, whatever the Configuration says', () => {
    const settled = withRuntimeSettings({ logging: { level: 'debug', file: '/tmp/openclaw/shared.log' }, update: { checkOnStart: true, channel: 'beta' } }, '/agents/a/state');
    expect(settled.logging).toEqual({ level: 'debug', file: '/agents/a/state/logs/openclaw.log', maxFileBytes: OPENCLAW_LOG_MAX_BYTES });
    expect(settled.update).toEqual({ checkOnStart: false, channel: 'beta' });
  });

  it('turns off the recurring heartbeat turn, autonomous self-learning, memory dreaming, the model-catalog download, the utility model, internal hooks, the gateway’s terminal and CLI agents and the automation scheduler, and keeps the file tools in the workspace, when the Configuration is silent', () => {
    const settled = withRuntimeSettings(
      { agents: { defaults: { model: { primary: 'x/y' } } }, models: { mode: 'merge' }, plugins: { deny: ['memory-core'], entries: { 'memory-core': { enabled: false } } } },
      '/s',
    );
    expect(settled.plugins).toEqual({ deny: ['memory-core'], entries: { 'memory-core': { enabled: false, config: { dreaming: { enabled: false } } } } });
    expect(settled.agents).toEqual({ defaults: { model: { primary: 'x/y' }, heartbeat: { every: '0m' }, utilityModel: '' } });
    expect(settled.skills).toEqual({ workshop: { autonomous: { mode: 'off' } } });
    expect(settled.models).toEqual({ mode: 'merge', catalogRefresh: { enabled: false } });
    expect(settled.hooks).toEqual({ internal: { enabled: false } });
    expect(settled.gateway).toEqual({ terminal: { enabled: false }, cliAgents: { enabled: false } });
    expect(settled.cron).toEqual({ enabled: false });
    expect(settled.tools).toEqual({ fs: { workspaceOnly: true } });
  });

  it('leaves each to a Configuration that sets it', () => {
    const values = {
      agents: { defaults: { heartbeat: { every: '1h', target: 'last' }, utilityModel: 'openai/gpt-5.6-luna' } },
      hooks: { internal: { enabled: true, entries: { 'session-memory': { enabled: true } } } },
      gateway: { terminal: { enabled: true }, cliAgents: { enabled: true }, http: { endpoints: { chatCompletions: { enabled: true } } } },
      skills: { workshop: { autonomous: { mode: 'auto' } } },
      models: { catalogRefresh: { enabled: true } },
      plugins: { entries: { 'memory-core': { config: { dreaming: { enabled: true, frequency: '0 4 * * *' } } } } },
      cron: { enabled: true },
      tools: { deny: ['exec'], fs: { workspaceOnly: false } },
    };
    const settled = withRuntimeSettings(values, '/s');
    expect(settled.plugins).toEqual(values.plugins);
    expect(settled.agents).toEqual(values.agents);
    expect(settled.skills).toEqual(values.skills);
    expect(settled.models).toEqual(values.models);
    expect(settled.hooks).toEqual(values.hooks);
    expect(settled.gateway).toEqual(values.gateway);
    expect(settled.cron).toEqual(values.cron);
    expect(settled.tools).toEqual(values.tools);
  });
});
