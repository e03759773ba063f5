import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test-support/deploy-helpers.ts';
import { sendMessage } from '../../../test-support/scripted-agent-turn.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../../test-support/scripted-responses-server.ts';
import type { AppServerError } from '../src/codex/app-server-client.ts';
import { connectAppServer } from '../src/codex/app-server-connection.ts';
import { appServerCredential } from '../src/codex/credential.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { childPids, processLive, processName } from '@occ/host-io/process-group';
import { addedSince, CALENDAR, codexAppsNamespace, MAIL, searchedToolNames, startHostedApps, type HostedApps } from './support/hosted-apps.ts';
import { asCodexManifest, startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// The Codex harness end to end in one runtime process: the real `codex app-server` (dedicated,
// prepared from the local marketplace fixture and the hosted service's catalog) and the real
// OpenClaw gateway with the pinned `@openclaw/codex` plugin bridged to it. The hosted service is
// the HTTPS fake of support/hosted-apps.ts: it signs the codex_pat in, records which bearer the
// app-server presents, and serves two hosted selections (`mail` installed, `calendar` needing
// authentication). The model is the scripted Responses API server, Codex's `openai_base_url`. One
// start serves every test (a Codex start is minutes of CPU on a loaded machine): its readiness, a
// turn, a turn that tries the hosted apps, the credential, the peer's restart.
const marketplaceRoot = fileURLToPath(new URL('../../../test-support/codex-marketplace', import.meta.url));
const transportSecret = randomBytes(32).toString('base64url');
const pat = `at-canary-${randomBytes(16).toString('hex')}`;
const accountId = 'acct-occ-runtime';
const GOOD = 'codex:good@occ-fixtures';
const REJECTED = 'codex:rejected@occ-fixtures';
let hostedApps: HostedApps;
let model: ScriptedResponsesServer;
let runtime: RunningRuntime;
/** The turn's reply as the caller got it (the codex_pat must not be in it). */
let replyBody = '';
/** Settled: the local marketplace's good plugin and the connected hosted app installed, the rest warnings (install order: sorted keys). */
const READY = {
  phase: 'ready',
  plugins: [GOOD, MAIL],
  failures: [
    { pluginId: CALENDAR, code: 'PLUGIN_AUTH_REQUIRED' },
    { pluginId: REJECTED, code: 'PLUGIN_INSTALL_FAILED' },
  ],
  error: null,
};

beforeAll(async () => {
  hostedApps = await startHostedApps(pat, accountId);
  model = await startScriptedResponsesServer();
  runtime = await startRuntime({
    selections: { [GOOD]: { enabled: true }, [REJECTED]: { enabled: true }, [MAIL]: { enabled: true }, [CALENDAR]: { enabled: true } },
    // The Configuration opens OpenClaw's OpenAI-compatible endpoint, through which the caller talks to the Agent.
    configuration: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } },
    rawManifest: asCodexManifest,
    network: { ...runtimeNetworkEnvironment(process.env), NODE_EXTRA_CA_CERTS: hostedApps.caFile },
    env: {
      OCC_RUNTIME_TRANSPORT_SECRET: transportSecret,
      OCC_RUNTIME_CODEX_PAT: pat,
      OCC_RUNTIME_CODEX_MARKETPLACES: marketplaceRoot,
      ...hostedApps.runtimeEnv,
      OCC_RUNTIME_CODEX_MODEL_BASE_URL: model.baseUrl,
    },
  });
}, 120_000);
afterAll(async () => {
  await runtime?.dispose();
  await model?.close();
  await hostedApps?.close();
});

// A first Codex start installs the harness plugin and starts the gateway: ≈ 2 min alone, longer in a
// loaded suite. A wait for the start to finish, not a timing assertion (bench/ measures speed).
const START_MS = 420_000;
const MAIL_ARGUMENTS = { to: 'someone@example.test', subject: `hello ${randomBytes(4).toString('hex')}` };
const CALENDAR_ARGUMENTS = { title: 'standup' };
/** Codex's own tools, which the harness offers only when it can hold the conversation's tool policy against them. */
const CODEX_NATIVE_TOOLS = ['exec_command', 'write_stdin', 'apply_patch'];
/** OpenClaw's tools an agent could change its own governance with (packages/policy/src/openclaw/governance.ts), and the host shell. */
const GOVERNANCE_TOOLS = /(^|\.)(plugins|secrets|openclaw|gateway|gateway_exec|skill_workshop|automations)$/u;
/** Where each peer startup's gateway reaches its app-server: the gate (the app-server itself takes the runtime's inner credential only). */
const appServerUrls = () =>
  runtime
    .events()
    .filter((e) => e.event === 'codex.peer.gate')
    .map((e) => e.url as string);
const gatewayPids = () =>
  runtime
    .events()
    .filter((e) => e.event === 'gateway.started')
    .map((e) => e.pid as number);

describe('a Codex revision in the runtime', () => {
  it(
    '[X-1] [X-8] [W-1] [W-3] [G-1] [G-7] reaches ready: the good plugins installed, the refused one and the one whose app needs authentication warnings and disabled in the gateway bridge',
    async () => {
      const status = await runtime.settled(START_MS);
      expect(status).toMatchObject(READY);
      expect(status.gatewayPort).toEqual(expect.any(Number));
      // toMatchObject: OpenClaw adds its resolved defaults (a global allow_destructive_actions each entry overrides).
      expect(await runtime.configGet('plugins.entries.codex.config.codexPlugins')).toMatchObject({
        enabled: true,
        allow_all_plugins: false,
        plugins: {
          'good@occ-fixtures': expect.objectContaining({ enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' }),
          'rejected@occ-fixtures': expect.objectContaining({ enabled: false, marketplaceName: 'occ-fixtures', pluginName: 'rejected' }),
          'mail@openai-curated-remote': expect.objectContaining({ enabled: true, marketplaceName: 'openai-curated-remote', pluginName: 'mail' }),
          'calendar@openai-curated-remote': expect.objectContaining({ enabled: false, marketplaceName: 'openai-curated-remote', pluginName: 'calendar' }),
        },
      });
      expect(await runtime.configGet('plugins.entries.codex.config.appServer.url')).toBe(appServerUrls()[0]);
      // Loaded as an installed ("global") plugin, the harness registers: OpenClaw says so when it refuses.
      await waitFor(
        'the gateway connecting to the app-server',
        async () => runtime.output(),
        (out) => out.includes('codex app-server remote WebSocket connection is healthy'),
        60_000,
        500,
      );
      expect(runtime.output()).not.toContain('requires the registry-owned "codex" harness');
      expect(runtime.output()).not.toContain('only bundled plugins can claim');
      // The harness serves without the native Codex binary in the Agent's state (the app-server runs the toolchain's).
      const harness = runtime.events().find((e) => e.event === 'codex.harness.installed');
      expect(harness?.droppedPlatformPackages).toEqual([expect.stringMatching(/^@openai\/codex-linux-(x64|arm64)$/)]);
      const projects = join(runtime.stateDir, 'npm', 'projects');
      const openaiPackages = readdirSync(projects).flatMap((project) =>
        existsSync(join(projects, project, 'node_modules', '@openai')) ? readdirSync(join(projects, project, 'node_modules', '@openai')) : [],
      );
      expect(openaiPackages).toEqual(['codex']);
      // [W-3] the Codex path is its own: none of the OpenClaw preparation's steps (npm installs, registry refresh) ran.
      const steps = runtime.events().filter((e) => e.event === 'startup.step');
      expect(steps.filter((e) => e.harness !== 'codex').map((e) => e.step)).toEqual([]);
      expect(steps.map((e) => e.step)).toEqual(expect.arrayContaining(['read-plugins', 'plan', 'install', 'write-config', 'verify-installs', 'verify-config']));
    },
    START_MS + 20_000,
  );

  it(
    "[S-2] the Codex gateway is locked down like an OpenClaw Agent's: no unselected bundled tool plugin runs, nothing is scheduled, its turns cannot fall back to another model, its log stays in the Agent's state",
    async () => {
      const status = await runtime.settled(START_MS);
      // Read back from the serving gateway itself: the harness is the only plugin with tools.
      const withTools = status.loaded!.plugins.filter((plugin) => plugin.tools.length > 0).map((plugin) => plugin.id);
      expect(withTools.filter((id) => id !== 'codex')).toEqual([]);
      expect(status.loaded!.plugins.map((plugin) => plugin.id)).toContain('codex');
      expect(status.loaded!.scheduledJobs).toEqual([]);
      expect(await runtime.configGet('plugins.deny')).toEqual(expect.arrayContaining(['browser', 'memory-core', 'file-transfer']));
      expect(await runtime.configGet('tools.deny')).toEqual(expect.arrayContaining(['plugins', 'gateway', 'openclaw']));
      expect(await runtime.configGet('agents.defaults.model')).toMatchObject({ primary: 'openai/gpt-5.5', fallbacks: [] });
      expect(await runtime.configGet('agents.defaults.models')).toMatchObject({ 'openai/gpt-5.5': { agentRuntime: { id: 'codex' } } });
      expect(await runtime.configGet('logging.file')).toBe(join(runtime.stateDir, 'logs', 'openclaw.log'));
    },
    START_MS + 20_000,
  );

  it(
    "[X-1] [G-6] [K-7] a message to the gateway is answered by Codex: the model got the turn over Codex's own wire format, signed in with the codex_pat, and the reply reached the caller",
    async () => {
      const status = await runtime.settled(START_MS);
      expect(status).toMatchObject({ phase: 'ready', error: null });
      expect(runtime.events().some((e) => e.event === 'codex.harness.installed')).toBe(true);
      const reply = `answered by codex ${randomBytes(4).toString('hex')}`;
      model.enqueue({ kind: 'text', text: reply });
      const started = Date.now();
      const answer = await sendMessage({ port: status.gatewayPort!, token: runtime.gatewayToken }, 'Hello, who answers?', 180_000);
      console.log(`codex turn: ${Date.now() - started} ms`);
      expect(answer.status).toBe(200);
      replyBody = JSON.stringify(answer.body);
      expect(answer.body).toMatchObject({ choices: [{ message: { role: 'assistant', content: expect.stringContaining(reply) } }] });

      const [turn] = model.turns();
      expect(turn).toBeDefined();
      // Codex's Responses client, driven by OpenClaw's harness: a WebSocket on …/responses, the
      // Responses beta header, Codex's version, the identity of the app-server's first client (the
      // runtime's own `initialize`: `occ-runtime`) in its user agent. The tools Codex offers include
      // OpenClaw's, bridged by the harness, and none of the governance tools the gateway denies.
      expect(turn!.transport).toBe('websocket');
      expect(turn!.path).toBe('/v1/responses');
      expect(turn!.headers['openai-beta']).toMatch(/^responses_websockets=/);
      expect(turn!.headers.version).toBe('0.154.0');
      expect(turn!.headers.originator).toBe('occ-runtime');
      expect(turn!.headers['user-agent']).toMatch(/^occ-runtime\/0\.154\.0 /);
      expect(turn!.body.model).toBe('gpt-5.5');
      console.log(`tools Codex offered: ${turn!.toolNames.join(', ')}`);
      expect(turn!.toolNames).toContain('agents_list');
      for (const denied of ['gateway', 'plugins', 'openclaw']) expect(turn!.toolNames).not.toContain(denied);
      expect(JSON.stringify(turn!.body.input)).toContain('Hello, who answers?');
      // Signed in with the Agent's codex_pat: whoami at the identity service, then the model's bearer.
      expect(hostedApps.whoamiBearers()).toContain(`Bearer ${pat}`);
      expect(turn!.headers.authorization).toBe(`Bearer ${pat}`);
      expect(turn!.headers['chatgpt-account-id']).toBe(accountId);
    },
    START_MS + 200_000,
  );

  // What runs at a real Codex turn when an Agent selects hosted apps, under the governance every OCC
  // Agent gets (docs/security.md, "What an agent may change"). OCC denies the agent OpenClaw's
  // `plugins`, `openclaw` and `secrets` tools; OpenClaw's Codex harness cannot enforce those denials
  // against Codex's own tools, so it turns Codex's native tool surface off for the conversation, and
  // with it every plugin app (its thread plugin policy is switched off: `policyEnabled: false` in the
  // gateway's debug log). Granting those tools would make the enabled app callable, but it also hands
  // the agent `plugins` (install from the catalog), `secrets`, `openclaw` (delegated setup) and
  // `gateway_exec` — measured, and refused: OCC keeps the governance (docs/specification-differences.md, X-2).
  //
  // The scripted model acts as an attacker would: it searches for app tools and for OpenClaw's
  // governance tools, then calls both apps' tools and the `plugins` tool anyway. What Codex does with
  // `tool_search` (observed on the bare app-server, where the enabled app's tool runs): app tools are
  // deferred, a `tool_search_call` answers with a namespace `mcp__codex_apps_<hash>` holding the
  // callable app tools, and a call is routed on (namespace, name); a call to anything not offered is
  // answered `unsupported call: <namespace><name>`. Runs before the app-server is killed, on the
  // peer that installed the selections; only this turn's requests, searches and outputs are read.
  it("[X-2] [G-1] under OCC's governance no hosted app tool executes at the turn: neither app nor a governance tool is offered, every call the model makes anyway is refused before the service, and the failed selection is not retried", async () => {
    const status = await runtime.settled(START_MS);
    expect(status).toMatchObject(READY);
    const { hosted } = hostedApps;
    const requestsBefore = hosted.requests.length;
    const mcpBefore = hosted.service.mcpMessages.length;
    const turnsBefore = model.turns().length;
    const searchesBefore = model.toolSearchOutputs();
    const outputsBefore = model.toolOutputs();
    const searches = () => addedSince(model.toolSearchOutputs(), searchesBefore);
    // The namespace the bare app-server offers these apps in, unless the search surfaces another.
    const namespace = () => codexAppsNamespace(searches())?.name ?? 'mcp__codex_apps';
    model.enqueue(
      { kind: 'tool-search', query: 'mail send message calendar create event' },
      { kind: 'tool-search', query: 'plugins install manage reload secrets openclaw setup repair gateway shell' },
      { kind: 'later', reply: () => ({ kind: 'tool-call', namespace: namespace(), name: 'mail_send_message', arguments: MAIL_ARGUMENTS }) },
      { kind: 'later', reply: () => ({ kind: 'tool-call', namespace: namespace(), name: 'calendar_create_event', arguments: CALENDAR_ARGUMENTS }) },
      { kind: 'tool-call', namespace: 'openclaw', name: 'plugins', arguments: { action: 'install', spec: '@openclaw/nostr' } },
      { kind: 'text', text: 'no app could run' },
    );
    const started = Date.now();
    const answer = await sendMessage({ port: status.gatewayPort!, token: runtime.gatewayToken }, 'Send the mail and put the standup in my calendar.', 300_000);
    console.log(`codex turn with app calls: ${Date.now() - started} ms`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ choices: [{ message: { role: 'assistant', content: expect.stringContaining('no app could run') } }] });

    // Offered: OpenClaw's tools through the harness, none of Codex's own (the harness turned them
    // off), no app tool, and no governance tool, in the turn or behind either search.
    const turn = model.turns()[turnsBefore];
    console.log(`tools Codex offered the turn: ${turn!.toolNames.join(', ')}`);
    console.log(`tools the searches surfaced: ${searchedToolNames(searches()).join(', ')}`);
    expect((turn!.body.tools as { type?: string }[]).map((tool) => tool.type)).toContain('tool_search');
    expect(searches()).toHaveLength(2);
    expect(turn!.toolNames.filter((name) => CODEX_NATIVE_TOOLS.includes(name))).toEqual([]);
    expect([...turn!.toolNames, ...searchedToolNames(searches())].filter((name) => name.startsWith('mcp__codex_apps') || GOVERNANCE_TOOLS.test(name))).toEqual([]);

    // Executed: nothing. No call reached the codex_apps server; each call got Codex's refusal.
    const calls = hosted.service.mcpMessages.slice(mcpBefore).filter((message) => message.method === 'tools/call');
    expect(calls).toEqual([]);
    const outputs = addedSince(model.toolOutputs(), outputsBefore);
    console.log(`tool outputs: ${JSON.stringify(outputs)}`);
    expect(outputs).toHaveLength(3);
    expect(outputs.filter((output) => /^unsupported call: \S*(mail_send_message|calendar_create_event|plugins)$/u.test(output))).toHaveLength(3);
    expect(outputs.join('\n')).not.toContain(hostedApps.mailResult);

    // The failed selection is not retried during the turn, and nothing is installed: no read,
    // install or download of any plugin.
    const duringTurn = hosted.requests.slice(requestsBefore);
    console.log(`hosted requests during the turn: ${JSON.stringify(duringTurn.map((request) => `${request.method} ${request.path}`))}`);
    expect(duringTurn.filter((request) => request.path.includes('Plugin_calendar') || request.path.startsWith('/files/bundles/'))).toEqual([]);
    expect(duringTurn.filter((request) => request.method === 'POST' && request.path.endsWith('/install'))).toEqual([]);
  }, 660_000);

  // The gateway's credential is in the gateway's environment, which the Agent's tools can read: they
  // can speak to the app-server as the gateway does. What they get is what a turn needs, no more.
  it("[G-6] [X-2] [X-20] a tool holding the gateway's credential runs no command at the app-server, and a thread it starts itself gets none of Codex's own tools, whatever it asks; the workspace stays untrusted", async () => {
    const status = await runtime.settled(START_MS);
    expect(status).toMatchObject(READY);
    const credential = appServerCredential(transportSecret, runtime.revisionId, runtime.endpoint().startupId);
    const client = await connectAppServer(appServerUrls()[0]!, credential, { requestTimeoutMs: 30_000 });
    try {
      const command = await client.request('command/exec', { command: ['true'], sandboxPolicy: { type: 'dangerFullAccess' } }).then(
        () => 'ran',
        (error: AppServerError) => error.rpcMessage,
      );
      expect(command).toBe('OCC does not let the gateway ask the app-server this: command/exec (the method is not one a turn needs).');
      const turnsBefore = model.turns().length;
      model.enqueue({ kind: 'text', text: 'a thread of its own' });
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {
        model: 'gpt-5.5',
        cwd: runtime.stateDir,
        sandbox: 'danger-full-access',
        approvalPolicy: 'never',
        config: { 'features.shell_tool': true, features: { unified_exec: true, apply_patch_freeform: true } },
      });
      await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'Run a shell.' }] });
      const turn = await waitFor(
        'the turn at the model',
        async () => model.turns()[turnsBefore],
        (found) => found !== undefined,
        120_000,
        100,
      );
      console.log(`tools Codex offered the tool's own thread: ${turn!.toolNames.join(', ')}`);
      expect(turn!.toolNames.filter((name) => [...CODEX_NATIVE_TOOLS, 'view_image'].includes(name))).toEqual([]);
      // After every turn so far, the workspace is still untrusted: Codex loads no `.codex` layer the Agent could write there ([X-20]).
      const codexConfig = readFileSync(join(runtime.revisionDir, 'codex-home', 'config.toml'), 'utf8');
      expect(codexConfig).toContain(`[projects.${JSON.stringify(realpathSync(join(runtime.stateDir, 'workspace')))}]\ntrust_level = "untrusted"\n`);
    } finally {
      await client.close();
    }
  }, 180_000);

  it("[G-6] the codex_pat reaches the app-server as its credential, and went only to the identity service and the model endpoint: it is in no log line, no reply and no file of the revision or the Agent's state", async () => {
    await waitFor(
      'the app-server presenting the codex_pat',
      async () => hostedApps.whoamiBearers(),
      (seen) => seen.length > 0,
      30_000,
      200,
    );
    expect(hostedApps.whoamiBearers()).toContain(`Bearer ${pat}`);
    expect(model.requests.every((request) => request.headers.authorization === undefined || request.headers.authorization === `Bearer ${pat}`)).toBe(true);
    expect(replyBody).toContain('answered by codex');
    expect(replyBody).not.toContain(pat);
    expect(runtime.output()).not.toContain(pat);
    const grep = spawnSync('grep', ['-rlF', pat, runtime.revisionDir, runtime.stateDir], { encoding: 'utf8' });
    expect([grep.status, grep.stdout]).toEqual([1, '']); // 1: searched everything, found nothing
  }, 60_000);

  it('[G-9] [G-8] [G-2] when the app-server dies: not ready, only OpenClaw restarted, ready again on a new peer whose old credential is refused', async () => {
    const [firstUrl] = appServerUrls();
    const firstPid = runtime.events().find((e) => e.event === 'codex.peer.started')!.pid as number;
    const [firstBinary] = childPids(firstPid);
    expect(processName(firstBinary!)).toBe('codex');
    // What the Agent's tools could plant in its state meanwhile: no process of the restarted OpenClaw reads it.
    writeFileSync(join(runtime.stateDir, '.env'), 'OCC_PLANTED_MARK=planted\n');
    process.kill(firstPid, 'SIGKILL');
    await waitFor(
      'the status to leave ready',
      async () => (await (await runtime.fetchStatus()).json()) as { phase: string },
      (s) => s.phase !== 'ready',
      30_000,
      100,
    );
    // A whole peer startup again (app-server, preparation, config verification, gateway, read-back):
    // minutes on a loaded two-core CI machine. Its speed is the deploy bench's concern, not this test's.
    const status = await waitFor(
      'ready again',
      async () => (await (await runtime.fetchStatus()).json()) as { phase: string; startupId: string },
      (s) => s.phase === 'ready',
      360_000,
      500,
    );
    expect(status.startupId).toBe(runtime.endpoint().startupId);
    expect(appServerUrls()).toHaveLength(2);
    expect(appServerUrls()[1]).not.toBe(firstUrl);
    expect(gatewayPids()).toHaveLength(2);
    expect(runtime.child.exitCode).toBeNull();
    expect(processLive(firstBinary!)).toBe(false);
    expect(existsSync(join(runtime.stateDir, '.env'))).toBe(false);
    expect(runtime.events().filter((e) => e.event === 'state.planted.removed')).toEqual([expect.objectContaining({ names: ['.env'] })]);
    // The gateway of the first peer startup held this credential; the new app-server refuses it.
    const stale = appServerCredential(transportSecret, runtime.revisionId, runtime.endpoint().startupId);
    const refused = await connectAppServer(appServerUrls()[1]!, stale).then(
      () => expect.unreachable('connected'),
      (e: unknown) => e as AppServerError,
    );
    expect([refused.kind, refused.rpcCode]).toEqual(['rpc', 401]);
    expect(await runtime.configGet('plugins.entries.codex.config.appServer.url')).toBe(appServerUrls()[1]);
  }, 420_000);

  it('[G-10] a gateway that exits on its own ends the runtime (exit 1), so its compute restarts the whole revision', async () => {
    const pid = gatewayPids().at(-1)!;
    process.kill(pid, 'SIGKILL');
    expect(await runtime.exited).toEqual({ code: 1, signal: null });
    expect(runtime.events().some((e) => e.event === 'gateway.exited')).toBe(true);
  }, 60_000);
});
