import { describe, expect, it } from 'vitest';
import { FEATURES_OFF, gateClientMessage, gatedThreadConfig } from '../../src/codex/app-server-gate-policy.ts';

const context = { roots: ['/agent/state', '/agent/revision/codex-home'] };
const gate = (message: unknown) => gateClientMessage(message, context);
const request = (method: string, params: Record<string, unknown> = {}) => ({ id: 7, method, params });
const refusal = (message: unknown) => {
  const verdict = gate(message);
  if (!('refuse' in verdict)) throw new Error(`not refused: ${JSON.stringify(verdict)}`);
  return verdict.refuse.reason;
};
const forwarded = (message: unknown) => {
  const verdict = gate(message);
  if (!('forward' in verdict)) throw new Error(`not forwarded: ${JSON.stringify(verdict)}`);
  return verdict.forward as { params: { config: Record<string, unknown> } };
};
const allOff = Object.fromEntries(FEATURES_OFF.map((feature) => [`features.${feature}`, false]));

describe('what the gateway may ask of its app-server', () => {
  it('refuses what runs code, reads or writes files, installs or changes configuration or sign-in there', () => {
    for (const method of [
      'command/exec',
      'command/write',
      'fs/readFile',
      'fs/writeFile',
      'process/spawn',
      'thread/shellCommand',
      'config/value/write',
      'config/batchWrite',
      'config/mcpServer/reload',
      'plugin/install',
      'plugin/uninstall',
      'marketplace/add',
      'marketplace/remove',
      'environment/add',
      'account/login/start',
      'account/logout',
      'feedback/upload',
      'experimentalFeature/enablement/set',
      'mcpServer/tool/call',
      'review/start',
      'a/method/codex/adds/later',
    ])
      expect(refusal(request(method)), method).toBe('the method is not one a turn needs');
    expect(gate(request('fs/readFile'))).toEqual({ refuse: { id: 7, method: 'fs/readFile', reason: 'the method is not one a turn needs' } });
  });

  it('passes the reads and the conversation, answers to the app-server, and the handshake', () => {
    for (const method of ['initialize', 'account/read', 'config/read', 'plugin/list', 'skills/list', 'thread/read', 'turn/interrupt'])
      expect(gate(request(method))).toEqual({ forward: request(method) });
    expect(gate({ method: 'initialized' })).toEqual({ forward: { method: 'initialized' } });
    expect(gate({ id: 3, result: { decision: 'accept' } })).toEqual({ forward: { id: 3, result: { decision: 'accept' } } });
    expect(gate({ method: 'something/else' })).toEqual({ drop: 'notification something/else' });
    expect(gate([request('command/exec')])).toEqual({ drop: 'not a JSON-RPC message' });
  });

  it("holds a thread to the harness's restrictions: the code-running features off whatever it asks, as one value per dotted path", () => {
    const sent = forwarded(
      request('thread/start', {
        model: 'gpt-5.5',
        sandbox: 'danger-full-access',
        config: {
          'features.shell_tool': true,
          features: { unified_exec: true, image_generation: false, code_mode: { enabled: true, direct_only_tool_namespaces: ['x'] } },
          // Only off: a feature or a switch that asks for true gets false.
          'features.standalone_web_search': true,
          'tools.update_plan.enabled': true,
          'agents.enabled': true,
          hooks: { PreToolUse: [], Stop: [] },
          // Sent both ways by the harness, with one value.
          'hooks.Stop': [],
          'skills.config': [],
          include_environment_context: false,
          notify: [],
          mcp_servers: { memory: { enabled: false } },
          apps: { _default: { enabled: false, destructive_enabled: false } },
          'orchestrator.mcp.enabled': false,
          web_search: 'disabled',
          project_doc_max_bytes: 0,
        },
      }),
    );
    // Read-only, no approvals, and no execution environment for the thread, whatever it asked (Codex: "empty disables environment access").
    expect(sent.params).toMatchObject({ model: 'gpt-5.5', sandbox: 'read-only', approvalPolicy: 'never', environments: [] });
    expect((forwarded(request('thread/start', { environments: [{ environmentId: 'local', cwd: '/' }] })).params as { environments?: unknown }).environments).toEqual([]);
    expect(sent.params.config).toEqual({
      'features.image_generation': false,
      'features.standalone_web_search': false,
      'tools.update_plan.enabled': false,
      'agents.enabled': false,
      'hooks.PreToolUse': [],
      'hooks.Stop': [],
      'skills.config': [],
      include_environment_context: false,
      notify: [],
      'mcp_servers.memory.enabled': false,
      'apps._default.enabled': false,
      'apps._default.destructive_enabled': false,
      'orchestrator.mcp.enabled': false,
      web_search: 'disabled',
      project_doc_max_bytes: 0,
      ...allOff,
    });
    // No configuration at all: the features are off all the same (the shell is on by Codex's default),
    // and a resumed or forked thread (which keeps the environment it had) is held read-only.
    const resumed = forwarded(request('thread/resume', { threadId: 't', sandbox: 'danger-full-access', approvalPolicy: 'on-request', permissions: 'full' }));
    expect(resumed.params).toEqual({ threadId: 't', sandbox: 'read-only', approvalPolicy: 'never', config: allOff });
    expect(forwarded(request('thread/fork', { threadId: 't' })).params).toEqual({ threadId: 't', sandbox: 'read-only', approvalPolicy: 'never', config: allOff });
  });

  it('refuses a thread whose configuration would add code, read a file, or switch something on', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mcp_servers: { evil: { command: 'sh', args: ['-c', 'env'] } } }, 'config mcp_servers.evil.command: an MCP server may only be switched off'],
      [{ 'mcp_servers.memory.enabled': true }, 'config mcp_servers.memory.enabled: an MCP server may only be switched off'],
      [{ hooks: { PreToolUse: [{ command: 'sh' }] } }, 'config hooks.PreToolUse: hooks may only be emptied'],
      [{ notify: ['sh', '-c', 'env'] }, 'config notify: notify may only be emptied'],
      [{ model_instructions_file: '/proc/self/environ' }, 'config model_instructions_file: not a setting the harness sends'],
      [{ model_providers: { x: { base_url: 'http://attacker' } } }, 'config model_providers.x.base_url: not a setting the harness sends'],
      [{ openai_base_url: 'http://attacker' }, 'config openai_base_url: not a setting the harness sends'],
      [{ 'apps._default.enabled': true }, 'config apps._default.enabled: an app may only be switched off'],
      [{ 'skills.extra_roots': ['/etc'] }, 'config skills.extra_roots: not a setting the harness sends'],
      [{ 'features.image_generation': 'yes' }, 'config features.image_generation: a feature is true or false'],
      [
        { 'shell_environment_policy.inherit': 'none', shell_environment_policy: { inherit: 'all' } },
        'config shell_environment_policy.inherit is given twice, with different values',
      ],
      [{ 'skills.config': [{ path: '/proc/1/environ', enabled: true }] }, 'config skills.config: skills may only be emptied'],
    ];
    for (const [config, reason] of cases) expect(refusal(request('thread/start', { config })), reason).toBe(reason);
    expect(refusal(request('thread/resume', { threadId: 't', path: '/proc/1/environ' }))).toBe('path is not accepted');
    expect(refusal(request('thread/start', { selectedCapabilityRoots: [{ path: '/tmp/x' }] }))).toBe('selectedCapabilityRoots is not accepted');
    expect(refusal(request('skills/list', { cwds: ['/agent/state/workspace'], perCwdExtraUserRoots: [{ cwd: '/agent/state', extraUserRoots: ['/etc'] }] }))).toBe(
      'perCwdExtraUserRoots is not accepted',
    );
    expect((forwarded(request('thread/fork', { threadId: 't', path: null })).params as { environments?: unknown }).environments).toBeUndefined();
    expect(refusal(request('thread/start', { config: 'features.shell_tool=true' }))).toBe('config is not an object');
  });

  it("passes a turn of text and images by URL, and refuses an item that names a file of the app-server's", () => {
    const input = [
      { type: 'text', text: 'hi' },
      { type: 'image', url: 'data:image/png;base64,AA' },
    ];
    expect(gate(request('turn/start', { threadId: 't', input, environments: [{ environmentId: 'local', cwd: '/' }] }))).toEqual({
      forward: request('turn/start', { threadId: 't', input, sandboxPolicy: { type: 'readOnly' }, approvalPolicy: 'never', environments: [] }),
    });
    expect(gate(request('turn/steer', { threadId: 't', input }))).toEqual({ forward: request('turn/steer', { threadId: 't', input }) });
    expect(refusal(request('turn/steer', { threadId: 't', input: [{ type: 'localImage', path: '/etc/shadow' }] }))).toMatch(/"localImage"/);
    expect(refusal(request('turn/start', { threadId: 't', input: [{ type: 'localImage', path: '/proc/1/environ' }] }))).toBe(
      'input item of type "localImage" is not text or an image by URL',
    );
    expect(refusal(request('turn/start', { threadId: 't', input: [{ type: 'skill', name: 's', path: '/etc/passwd' }] }))).toMatch(/"skill"/);
  });

  it("refuses a directory outside the Agent's own roots, for a thread, a turn or a listing", () => {
    const outside = "names a directory outside the Agent's own";
    expect(refusal(request('thread/start', { cwd: '/' }))).toBe(`cwd ${outside}`);
    expect(refusal(request('thread/start', { cwd: '/agent/state/../../etc' }))).toBe(`cwd ${outside}`);
    expect(refusal(request('thread/start', { cwd: '/agent/stateful' }))).toBe(`cwd ${outside}`);
    expect(refusal(request('turn/start', { threadId: 't', cwd: 'relative' }))).toBe(`cwd ${outside}`);
    expect(refusal(request('skills/list', { cwds: ['/agent/state/workspace', '/root'] }))).toBe(`cwds ${outside}`);
    expect(refusal(request('plugin/read', { marketplacePath: '/proc/self/environ', pluginName: 'x' }))).toBe(`marketplacePath ${outside}`);
    expect(refusal(request('config/read', { cwd: '/etc' }))).toBe(`cwd ${outside}`);
    // The same as positional parameters, which Codex also takes (a reviewer listed a skill and read a project layer that way).
    expect(refusal({ id: 1, method: 'skills/list', params: [['/root'], true] })).toBe('params is not an object');
    expect(refusal({ id: 2, method: 'config/read', params: [true, '/etc'] })).toBe('params is not an object');
    // The harness's own: the workspace, OpenClaw's agent directory, CODEX_HOME's marketplaces.
    for (const message of [
      request('thread/start', { cwd: '/agent/state/workspace' }),
      request('thread/start', { cwd: '/agent/state/agents/main/agent' }),
      request('plugin/installed', { cwds: ['/agent/state/workspace'] }),
      request('plugin/read', { marketplacePath: '/agent/revision/codex-home/.tmp/marketplaces/m/marketplace.json', pluginName: 'x' }),
    ])
      expect('forward' in gate(message), JSON.stringify(message)).toBe(true);
  });

  it('the forced features hold against a later table for the same feature', () => {
    const gated = gatedThreadConfig({ features: { shell_tool: true }, 'features.shell_tool': true });
    expect(gated).toEqual({ config: allOff });
  });
});
