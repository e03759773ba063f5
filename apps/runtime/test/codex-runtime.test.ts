import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test-support/deploy-helpers.ts';
import { startFakeCodexIdentity, type FakeCodexIdentity } from '../../../test-support/fake-codex-identity.ts';
import { sendMessage } from '../../../test-support/scripted-agent-turn.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../../test-support/scripted-responses-server.ts';
import type { AppServerError } from '../src/codex/app-server-client.ts';
import { connectAppServer } from '../src/codex/app-server-connection.ts';
import { appServerCredential } from '../src/codex/credential.ts';
import { childPids, processLive, processName } from '@occ/host-io/process-group';
import { asCodexManifest, startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// The Codex harness end to end in one runtime process: the real `codex app-server` (dedicated,
// prepared from the local marketplace fixture) and the real OpenClaw gateway with the pinned
// `@openclaw/codex` plugin bridged to it. The hosted identity service is a local fake that signs
// the codex_pat in and records which bearer the app-server presents; the model is the scripted
// Responses API server, Codex's `openai_base_url`. One start serves every test (a Codex start is
// minutes of CPU on a loaded machine): its readiness, a turn, the credential, the peer's restart.
const marketplaceRoot = fileURLToPath(new URL('../../../test-support/codex-marketplace', import.meta.url));
const transportSecret = randomBytes(32).toString('base64url');
const pat = `at-canary-${randomBytes(16).toString('hex')}`;
const accountId = 'acct-occ-runtime';
let identity: FakeCodexIdentity;
let model: ScriptedResponsesServer;
let runtime: RunningRuntime;
/** The turn's reply as the caller got it (the codex_pat must not be in it). */
let replyBody = '';

beforeAll(async () => {
  identity = await startFakeCodexIdentity(pat, { accountId });
  model = await startScriptedResponsesServer();
  runtime = await startRuntime({
    selections: { 'codex:good@occ-fixtures': { enabled: true }, 'codex:rejected@occ-fixtures': { enabled: true } },
    // The Configuration opens OpenClaw's OpenAI-compatible endpoint, through which the caller talks to the Agent.
    configuration: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } },
    rawManifest: asCodexManifest,
    env: {
      OCC_RUNTIME_TRANSPORT_SECRET: transportSecret,
      OCC_RUNTIME_CODEX_PAT: pat,
      OCC_RUNTIME_CODEX_MARKETPLACES: marketplaceRoot,
      OCC_RUNTIME_CODEX_AUTH_BASE_URL: identity.authBaseUrl,
      OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: identity.chatgptBaseUrl,
      OCC_RUNTIME_CODEX_MODEL_BASE_URL: model.baseUrl,
    },
  });
}, 120_000);
afterAll(async () => {
  await runtime?.dispose();
  await model?.close();
  await identity?.close();
});

// A first Codex start installs the harness plugin and starts the gateway: ≈ 2 min alone, longer in a
// loaded suite. A wait for the start to finish, not a timing assertion (bench/ measures speed).
const START_MS = 420_000;
const appServerUrls = () =>
  runtime
    .events()
    .filter((e) => e.event === 'codex.peer.started')
    .map((e) => e.url as string);
const gatewayPids = () =>
  runtime
    .events()
    .filter((e) => e.event === 'gateway.started')
    .map((e) => e.pid as number);

describe('a Codex revision in the runtime', () => {
  it(
    '[X-1] [X-8] [W-1] [W-3] [G-1] [G-7] reaches ready: the good plugin installed, the refused one a warning and disabled in the gateway bridge',
    async () => {
      const status = await runtime.settled(START_MS);
      expect(status).toMatchObject({
        phase: 'ready',
        plugins: ['codex:good@occ-fixtures'],
        failures: [{ pluginId: 'codex:rejected@occ-fixtures', code: 'PLUGIN_INSTALL_FAILED' }],
        error: null,
      });
      expect(status.gatewayPort).toEqual(expect.any(Number));
      // toMatchObject: OpenClaw adds its resolved defaults (a global allow_destructive_actions each entry overrides).
      expect(await runtime.configGet('plugins.entries.codex.config.codexPlugins')).toMatchObject({
        enabled: true,
        allow_all_plugins: false,
        plugins: {
          'good@occ-fixtures': expect.objectContaining({ enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' }),
          'rejected@occ-fixtures': expect.objectContaining({ enabled: false, marketplaceName: 'occ-fixtures', pluginName: 'rejected' }),
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
      expect(identity.bearers).toContain(`Bearer ${pat}`);
      expect(turn!.headers.authorization).toBe(`Bearer ${pat}`);
      expect(turn!.headers['chatgpt-account-id']).toBe(accountId);
    },
    START_MS + 200_000,
  );

  it("[G-6] the codex_pat reaches the app-server as its credential, and went only to the identity service and the model endpoint: it is in no log line, no reply and no file of the revision or the Agent's state", async () => {
    await waitFor(
      'the app-server presenting the codex_pat',
      async () => identity.bearers,
      (seen) => seen.length > 0,
      30_000,
      200,
    );
    expect(identity.bearers).toContain(`Bearer ${pat}`);
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
