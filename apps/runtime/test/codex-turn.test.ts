import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCodexIdentity, type FakeCodexIdentity } from '../../../test-support/fake-codex-identity.ts';
import { sendMessage } from '../../../test-support/scripted-agent-turn.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../../test-support/scripted-responses-server.ts';
import { asCodexManifest, startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// A Codex Agent's turn in one runtime process: a message to the real OpenClaw gateway runs through
// the npm-installed `@openclaw/codex` harness and the dedicated real `codex app-server`, which asks
// the model — the scripted Responses API server, Codex's `openai_base_url` — as Codex does. The
// hosted identity service is a local fake that accepts the codex_pat (so Codex is signed in with it).
const transportSecret = randomBytes(32).toString('base64url');
const pat = `at-canary-${randomBytes(16).toString('hex')}`;
const accountId = 'acct-occ-turn';
let identity: FakeCodexIdentity;
let model: ScriptedResponsesServer;
let runtime: RunningRuntime;

beforeAll(async () => {
  identity = await startFakeCodexIdentity(pat, { accountId });
  model = await startScriptedResponsesServer();
  runtime = await startRuntime({
    selections: {},
    // The Configuration opens OpenClaw's OpenAI-compatible endpoint, through which the caller talks to the Agent.
    configuration: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } },
    rawManifest: asCodexManifest,
    env: {
      OCC_RUNTIME_TRANSPORT_SECRET: transportSecret,
      OCC_RUNTIME_CODEX_PAT: pat,
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

describe('a Codex Agent\'s turn', () => {
  it('[X-1] [G-6] [K-7] a message to the gateway is answered by Codex: the model got the turn over Codex\'s own wire format, signed in with the codex_pat, and the reply reached the caller', async () => {
    const status = await runtime.settled(420_000);
    expect(status).toMatchObject({ phase: 'ready', error: null });
    expect(runtime.events().some((e) => e.event === 'codex.harness.installed')).toBe(true);
    const reply = `answered by codex ${randomBytes(4).toString('hex')}`;
    model.enqueue({ kind: 'text', text: reply });
    const started = Date.now();
    const answer = await sendMessage({ port: status.gatewayPort!, token: runtime.gatewayToken }, 'Hello, who answers?', 180_000);
    console.log(`codex turn: ${Date.now() - started} ms`);
    expect(answer.status).toBe(200);
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
  }, 660_000);

  it('[G-6] the codex_pat went only to the identity service and the model endpoint: it is in no log line, no reply and no file of the revision or the Agent\'s state', async () => {
    expect(model.requests.every((request) => request.headers.authorization === undefined || request.headers.authorization === `Bearer ${pat}`)).toBe(true);
    expect(runtime.output()).not.toContain(pat);
    const grep = spawnSync('grep', ['-rlF', pat, runtime.revisionDir, runtime.stateDir], { encoding: 'utf8' });
    expect([grep.status, grep.stdout]).toEqual([1, '']); // 1: searched everything, found nothing
  }, 60_000);
});
