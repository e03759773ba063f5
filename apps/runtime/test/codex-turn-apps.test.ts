// What runs at a real Codex turn when an Agent selects hosted apps, under the governance every OCC
// Agent gets (docs/security.md, "What an agent may change"). OCC denies the agent OpenClaw's
// `plugins`, `openclaw` and `secrets` tools; OpenClaw's Codex harness cannot enforce those denials
// against Codex's own tools, so it turns Codex's native tool surface off for the conversation, and
// with it every plugin app (its thread plugin policy is switched off: `policyEnabled: false` in the
// gateway's debug log). Granting those tools would make the enabled app callable, but it also hands
// the agent `plugins` (install from the catalog), `secrets`, `openclaw` (delegated setup) and
// `gateway_exec` — measured, and refused: OCC keeps the governance (docs/specification-differences.md, X-2).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePluginItem, startFakeHostedCatalog, type FakeHostedCatalog } from '../../../test-support/fake-hosted-catalog.ts';
import { sendMessage } from '../../../test-support/scripted-agent-turn.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../../test-support/scripted-responses-server.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { asCodexManifest, startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// One runtime process (the real OpenClaw gateway, the pinned `@openclaw/codex` harness, the
// dedicated real `codex app-server`) against the HTTPS hosted fake (catalog, plugin service, the
// `codex_apps` MCP server) and the scripted Responses API. Two hosted selections: `mail` (its app
// connected) and `calendar`, whose install the service answers with its app needing authentication
// (PLUGIN_AUTH_REQUIRED: the app is off and its bridge entry disabled). The fake's codex_apps server
// lists a tool of BOTH apps, so only the configuration can keep a tool from running. The scripted
// model acts as an attacker would: it searches for app tools and for OpenClaw's governance tools,
// then calls both apps' tools and the `plugins` tool anyway.
//
// What Codex does with `tool_search` (observed on the bare app-server, where the enabled app's tool
// runs): app tools are deferred, a `tool_search_call` answers with a namespace
// `mcp__codex_apps_<hash>` holding the callable app tools, and a call is routed on (namespace, name);
// a call to anything not offered is answered `unsupported call: <namespace><name>`.
const transportSecret = randomBytes(32).toString('base64url');
const PAT = `at-occ-turn-apps-${randomBytes(12).toString('hex')}`;
const ACCOUNT = 'acct-occ-turn-apps';
const REMOTE = 'openai-curated-remote';
const MAIL = `codex:mail@${REMOTE}`;
const CALENDAR = `codex:calendar@${REMOTE}`;
const MAIL_RESULT = `mail sent ${randomBytes(6).toString('hex')}`;
const MAIL_ARGUMENTS = { to: 'someone@example.test', subject: `hello ${randomBytes(4).toString('hex')}` };
const CALENDAR_ARGUMENTS = { title: 'standup' };

let hosted: FakeHostedCatalog;
let model: ScriptedResponsesServer;
let runtime: RunningRuntime;
let caDir: string;

beforeAll(async () => {
  hosted = await startFakeHostedCatalog();
  hosted.accounts.set(PAT, { accountId: ACCOUNT, plan: 'pro' });
  hosted.plugins.push(
    fakePluginItem('mail', { id: 'plugins~Plugin_mail', release: { version: '1.2.0', app_ids: ['asdk_app_mail'] } }),
    fakePluginItem('calendar', { id: 'plugins~Plugin_calendar', release: { version: '3.1.0', app_ids: ['asdk_app_calendar'] } }),
  );
  hosted.apps.set('asdk_app_mail', { id: 'asdk_app_mail', name: 'Mail', description: 'A mail app.' });
  hosted.apps.set('asdk_app_calendar', { id: 'asdk_app_calendar', name: 'Calendar', description: 'A calendar app.' });
  hosted.service.appsNeedingAuth.add('asdk_app_calendar');
  hosted.service.codexAppsTools.push({ app: 'asdk_app_mail', name: 'mail_send_message' }, { app: 'asdk_app_calendar', name: 'calendar_create_event' });
  hosted.service.toolResults.set('mail_send_message', { content: [{ type: 'text', text: MAIL_RESULT }], isError: false });
  caDir = mkdtempSync(join(tmpdir(), 'occ-turn-apps-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), hosted.ca, { mode: 0o600 });
  model = await startScriptedResponsesServer();
  const origin = new URL(hosted.catalogBaseUrl).origin;
  runtime = await startRuntime({
    selections: { [MAIL]: { enabled: true }, [CALENDAR]: { enabled: true } },
    configuration: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } },
    rawManifest: asCodexManifest,
    // The hosted fake's CA, as an Installation's own CA reaches the runtime (Codex gets it as CODEX_CA_CERTIFICATE).
    network: { ...runtimeNetworkEnvironment(process.env), NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem') },
    env: {
      OCC_RUNTIME_TRANSPORT_SECRET: transportSecret,
      OCC_RUNTIME_CODEX_PAT: PAT,
      OCC_RUNTIME_CODEX_AUTH_BASE_URL: `${origin}/api/accounts`,
      OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: `${origin}/backend-api`,
      OCC_RUNTIME_CODEX_MODEL_BASE_URL: model.baseUrl,
    },
  });
}, 120_000);
afterAll(async () => {
  await runtime?.dispose();
  await model?.close();
  await hosted?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

interface SearchedNamespace {
  type?: string;
  name?: string;
  tools?: { name?: string }[];
}

/** The codex_apps namespace the turn's tool searches surfaced (what a model calls app tools in). */
function codexAppsNamespace(): SearchedNamespace | undefined {
  return [...model.toolSearchOutputs().values()]
    .flat()
    .map((tool) => tool as SearchedNamespace)
    .find((tool) => tool.type === 'namespace' && /^mcp__codex_apps/u.test(tool.name ?? ''));
}

/** Every tool the turn's searches surfaced, as `namespace.name` (or `name`). */
function searchedToolNames(): string[] {
  return [...model.toolSearchOutputs().values()].flat().flatMap((tool) => {
    const found = tool as SearchedNamespace;
    return found.type === 'namespace' ? (found.tools ?? []).map((inner) => `${found.name}.${inner.name}`) : [found.name ?? ''];
  });
}

/** Codex's own tools, which the harness offers only when it can hold the conversation's tool policy against them. */
const CODEX_NATIVE_TOOLS = ['exec_command', 'write_stdin', 'apply_patch'];
/** OpenClaw's tools an agent could change its own governance with (packages/policy/src/openclaw/governance.ts), and the host shell. */
const GOVERNANCE_TOOLS = /(^|\.)(plugins|secrets|openclaw|gateway|gateway_exec|skill_workshop|automations)$/u;

describe("hosted apps at a Codex Agent's turn", () => {
  it("[X-2] [G-1] under OCC's governance no hosted app tool executes at the turn: neither app nor a governance tool is offered, every call the model makes anyway is refused before the service, and the failed selection is not retried", async () => {
    const status = await runtime.settled(420_000);
    expect(status).toMatchObject({ phase: 'ready', plugins: [MAIL], failures: [{ pluginId: CALENDAR, code: 'PLUGIN_AUTH_REQUIRED' }], error: null });
    const requestsBefore = hosted.requests.length;
    const mcpBefore = hosted.service.mcpMessages.length;
    // The namespace the bare app-server offers these apps in, unless the search surfaces another.
    const namespace = () => codexAppsNamespace()?.name ?? 'mcp__codex_apps';
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
    const [turn] = model.turns();
    console.log(`tools Codex offered the turn: ${turn!.toolNames.join(', ')}`);
    console.log(`tools the searches surfaced: ${searchedToolNames().join(', ')}`);
    expect((turn!.body.tools as { type?: string }[]).map((tool) => tool.type)).toContain('tool_search');
    expect(model.toolSearchOutputs().size).toBe(2);
    expect(turn!.toolNames.filter((name) => CODEX_NATIVE_TOOLS.includes(name))).toEqual([]);
    expect([...turn!.toolNames, ...searchedToolNames()].filter((name) => name.startsWith('mcp__codex_apps') || GOVERNANCE_TOOLS.test(name))).toEqual([]);

    // Executed: nothing. No call reached the codex_apps server; each call got Codex's refusal.
    const calls = hosted.service.mcpMessages.slice(mcpBefore).filter((message) => message.method === 'tools/call');
    expect(calls).toEqual([]);
    const outputs = [...model.toolOutputs().values()];
    console.log(`tool outputs: ${JSON.stringify(outputs)}`);
    expect(outputs).toHaveLength(3);
    expect(outputs.filter((output) => /^unsupported call: \S*(mail_send_message|calendar_create_event|plugins)$/u.test(output))).toHaveLength(3);
    expect(outputs.join('\n')).not.toContain(MAIL_RESULT);

    // The failed selection is not retried during the turn, and nothing is installed: no read,
    // install or download of any plugin.
    const duringTurn = hosted.requests.slice(requestsBefore);
    console.log(`hosted requests during the turn: ${JSON.stringify(duringTurn.map((request) => `${request.method} ${request.path}`))}`);
    expect(duringTurn.filter((request) => request.path.includes('Plugin_calendar') || request.path.startsWith('/files/bundles/'))).toEqual([]);
    expect(duringTurn.filter((request) => request.method === 'POST' && request.path.endsWith('/install'))).toEqual([]);
  }, 660_000);
});
