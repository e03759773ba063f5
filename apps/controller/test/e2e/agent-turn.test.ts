import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOVERNANCE_TOOLS } from '@occ/policy';
import { activeRevisionId, admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';
import { filesUnder } from '../../../../test-support/stand-in-runtime.ts';
import { startScriptedModelServer, type RecordedModelRequest, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// A real agent turn through a deployed OpenClaw gateway: the Agent's Configuration points OpenClaw
// at a scripted OpenAI-compatible model server on loopback (the one fake: no model runs here)
// whose API key is a Secret bound to a variable; a message goes in through the gateway's
// OpenAI-compatible endpoint, and what the model server receives shows what the agent really got:
// the key, and the tools it is offered.
const GOOD = FIXTURE_PLUGINS.good;
const TAMPERED = FIXTURE_PLUGINS.tampered;
const DEPLOY_MS = 600_000;
const TURN_MS = 240_000;
// Over 300 s once on a clean CI run (three test files beside it on two cores); its speed is bench/’s concern.
const BRING_BACK_MS = 480_000;
const KEY_VARIABLE = 'SCRIPTED_MODEL_API_KEY';
// Tools the pinned OpenClaw (2026.9.5) gives every agent itself, whatever plugins load, with tool
// search off and no profile (apps/runtime/README.md, "An agent turn"). The Configuration's own
// tools.profile/allow/deny govern them; the plugin policy governs plugin tools; the governance
// tools (GOVERNANCE_TOOLS) are denied unless the Configuration grants them.
const CORE_TOOLS = [
  'agents_list',
  'agents_wait',
  'apply_patch',
  'ask_user',
  'automations',
  'conversations_list',
  'conversations_send',
  'conversations_turn',
  'create_goal',
  'dashboard',
  'edit',
  'exec',
  'gateway',
  'get_goal',
  'ls',
  'message',
  'mobile_ui',
  'nodes',
  'openclaw',
  'plugins',
  'portal',
  'process',
  'progress_card',
  'read',
  'secrets',
  'session_status',
  'sessions',
  'sessions_history',
  'sessions_list',
  'sessions_search',
  'sessions_send',
  'sessions_spawn',
  'sessions_yield',
  'skill_workshop',
  'subagents',
  'terminal',
  'tts',
  'update_goal',
  'web_fetch',
  'web_search',
  'write',
];

let e2e: E2E;
let model: ScriptedModelServer;
let target: DeployTarget;
let revisionId: string;
// No known token shape (sk-…, occ_…): audit redaction must not be what hides it.
const canary = `canary-${randomBytes(16).toString('hex')}`;

beforeAll(async () => {
  // One attempt per deploy: the failing candidate below ends at once instead of being retried.
  model = await startScriptedModelServer();
  // The model server is the one host loopback port the confined runtime may reach (docs/security.md).
  e2e = await startE2E({ work: { maxAttempts: 1 }, env: { OCC_LOCAL_SHARED_LOOPBACK_PORTS: new URL(model.baseUrl).port } });
});

afterAll(async () => {
  await e2e?.close();
  await model?.close();
});

/** The Configuration: the scripted provider with its key from the environment (an OpenClaw SecretRef), the chat endpoint on, direct tool schemas. */
function configurationValues(): Record<string, unknown> {
  const values = scriptedModelConfiguration(model, { apiKey: { source: 'env', provider: 'default', id: KEY_VARIABLE } });
  // Tool Search (OpenClaw's default) sends a few search tools and defers the rest; off, every offered schema is in the request.
  return { ...values, tools: { toolSearch: false, deny: ['exec'] } };
}

/** The gateway of the running revision. */
const gateway = () => e2e.gateway(target, revisionId);

async function sendMessage(text: string): Promise<{ status: number; body: any }> {
  const { port, token } = gateway();
  const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openclaw/default', messages: [{ role: 'user', content: text }] }),
    signal: AbortSignal.timeout(TURN_MS),
  });
  return { status: res.status, body: await res.json() };
}

/** The tool result the gateway sent back to the model for `callId` (the next request's `role: tool` message). */
function toolResult(request: RecordedModelRequest, name: string): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string }> }).messages;
  const result = messages.find((m) => m.role === 'tool');
  if (!result) throw new Error(`no tool result for ${name} in the request`);
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

const pluginToolNames = () => new Set(e2e.registry.catalog.plugins.flatMap((p) => p.tools ?? []));

describe('an agent turn through a deployed OpenClaw gateway', () => {
  it(
    '[K-7][N-2][N-3][N-5][O-3] the delivered Secret is the model provider key; the model is offered the selected plugin’s allowed tools and OpenClaw’s core tools, nothing disabled, denied or unselected',
    async () => {
      const ns = e2e.t.defaultNamespaceId;
      target = await newDeployTarget(e2e.t, {
        plugins: { [`openclaw:${GOOD.package}`]: { enabled: true, tools: { fixture_write: { enabled: false } } } },
        values: configurationValues(),
      });
      const secret = await adminCreate(e2e.t, `/namespaces/${ns}/secrets`, { name: uniqueName('model-key'), value: canary });
      const bound = await e2e.t.request({
        method: 'PATCH',
        url: `/namespaces/${ns}/configurations/${target.cfg}`,
        body: { secretBindings: { [KEY_VARIABLE]: { secretId: secret.id } } },
      });
      expect(bound.status, bound.raw).toBe(200);
      await grant(e2e.t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });

      const revision = await admit(e2e.t, target);
      revisionId = revision.id;
      const status = await waitTerminal(e2e.t, target, revisionId, DEPLOY_MS);
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      const live = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` });
      expect(live.body.data).toMatchObject({ running: true, ready: true, deliveredSecrets: [KEY_VARIABLE] });

      const started = Date.now();
      const answer = await sendMessage('What time is it?');
      console.log(`agent turn: ${Date.now() - started} ms`);
      expect(answer.status).toBe(200);
      expect(answer.body.choices[0].message.content).toBe('scripted answer');

      const [request] = model.completions();
      expect(model.completions()).toHaveLength(1);
      // The key arrived: the Secret's value, delivered as the variable the Configuration's SecretRef names.
      expect(request!.headers.authorization).toBe(`Bearer ${canary}`);
      const offered = new Set(request!.toolNames);
      console.log(`tools offered (${offered.size}): ${[...offered].sort().join(', ')}`);
      // Plugin tools: exactly the selected plugin's allowed ones — not its policy-disabled tool, and none of
      // the bundled plugins OpenClaw would enable by itself (browser, canvas, file-transfer, memory-core …).
      expect([...offered].filter((name) => pluginToolNames().has(name)).sort()).toEqual(['fixture_clock', 'fixture_echo']);
      // Everything else is OpenClaw's own, minus the Configuration's operator deny.
      expect([...offered].filter((name) => !pluginToolNames().has(name)).sort()).toEqual(CORE_TOOLS.filter((name) => name !== 'exec' && !GOVERNANCE_TOOLS.includes(name)));

      // The unselected bundled tool plugins are denied in the revision's effective configuration.
      const plugins = (await e2e.configGet(target, revisionId, 'plugins')) as { entries: Record<string, { enabled?: boolean }>; deny?: string[] };
      expect(plugins.deny).toEqual([
        'a2a',
        'browser',
        'canvas',
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
      expect(plugins.entries[GOOD.pluginId]?.enabled).toBe(true);
    },
    DEPLOY_MS + TURN_MS,
  );

  it(
    'a message through OCC (POST …/messages) reaches the gateway and the scripted model answers it, streamed; audited without the text; the gateway token in no answer; the same conversation goes on in one session',
    async () => {
      const token = gateway().token;
      const url = `${target.url}/messages`;
      const events = (raw: string) =>
        raw
          .split('\n\n')
          .filter((b) => b.startsWith('event: '))
          .map((b) => ({ event: b.slice(7, b.indexOf('\n')), data: JSON.parse(b.slice(b.indexOf('data: ') + 6)) }));
      const reply = (raw: string) =>
        events(raw)
          .filter((e) => e.event === 'reply')
          .map((e) => e.data.text)
          .join('');

      const mark = model.completions().length;
      model.enqueue({ kind: 'text', text: 'relayed answer' });
      const started = Date.now();
      const first = await e2e.t.request({ method: 'POST', url, body: { text: 'Hello through OCC' } });
      console.log(`agent turn through OCC: ${Date.now() - started} ms`);
      expect(first.status, first.raw).toBe(200);
      expect(
        events(first.raw)
          .map((e) => e.event)
          .join(' '),
      ).toMatch(/^accepted( reply)+ done$/);
      expect(reply(first.raw)).toBe('relayed answer');
      const conversation = events(first.raw)[0]!.data.conversation as string;
      expect(events(first.raw)[0]!.data).toEqual({ type: 'accepted', conversation, revisionId });
      const turn = model.completions().slice(mark);
      expect(turn).toHaveLength(1);
      expect(JSON.stringify(turn[0]!.body)).toContain('Hello through OCC');

      // The same conversation: the gateway sends the model the earlier exchange too (one agent session).
      model.enqueue({ kind: 'text', text: 'second answer' });
      const second = await e2e.t.request({ method: 'POST', url, body: { text: 'And a follow-up', conversation } });
      expect(reply(second.raw)).toBe('second answer');
      const history = JSON.stringify(model.completions().at(-1)!.body);
      expect(history).toContain('Hello through OCC');
      expect(history).toContain('relayed answer');
      expect(history).toContain('And a follow-up');

      for (const res of [first, second]) {
        expect(res.raw).not.toContain(token);
        expect(JSON.stringify(res.headers)).not.toContain(token);
      }
      const audit = await e2e.t.request({ method: 'GET', url: '/audit-events?limit=20' });
      const messages = audit.body.data.items.filter((e: { action: string }) => e.action === 'agents.message');
      expect(messages.map((e: { details: unknown }) => e.details)).toEqual([
        { revisionId, revision: 1, conversation, characters: 'And a follow-up'.length },
        { revisionId, revision: 1, conversation, characters: 'Hello through OCC'.length },
      ]);
      expect(audit.raw).not.toContain('Hello through OCC');
      expect(audit.raw).not.toContain(token);
    },
    3 * TURN_MS,
  );

  it(
    '[K-7][N-3] a selected tool runs when the model calls it; a policy-disabled tool called by name is refused, never run',
    async () => {
      const before = model.completions().length;
      model.enqueue({ kind: 'tool-call', name: 'fixture_echo', arguments: { input: 'echo-through-openclaw' } }, { kind: 'text', text: 'echoed' });
      const echoed = await sendMessage('Echo something.');
      expect(echoed.status).toBe(200);
      expect(echoed.body.choices[0].message.content).toBe('echoed');
      const echoTurn = model.completions().slice(before);
      expect(echoTurn).toHaveLength(2);
      expect(toolResult(echoTurn[1]!, 'fixture_echo')).toContain('echo-through-openclaw');

      const mark = model.completions().length;
      model.enqueue({ kind: 'tool-call', name: 'fixture_write', arguments: { input: 'should never be written' } }, { kind: 'text', text: 'refused' });
      const written = await sendMessage('Write a note.');
      expect(written.status).toBe(200);
      const writeTurn = model.completions().slice(mark);
      expect(writeTurn).toHaveLength(2);
      const result = toolResult(writeTurn[1]!, 'fixture_write');
      // OpenClaw never registered it for this agent: the call is answered with an error, the tool never runs.
      expect(result).toMatch(/fixture_write not found/);
      expect(result).not.toMatch(/wrote \d+ chars/);
    },
    3 * TURN_MS,
  );

  it('[O-3] the Secret value is nowhere else: runtime log, deployment status, live view, audit events, database rows, files under the data directory', async () => {
    const logs = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=1000` });
    expect(logs.status).toBe(200);
    expect(logs.body.data.lines.length).toBeGreaterThan(0);
    expect(logs.raw).not.toContain(canary);
    for (const url of [
      `${target.url}/deployments/${revisionId}`,
      `${target.url}/deployments/${revisionId}/runtime`,
      `${target.url}/revisions/${revisionId}`,
      '/audit-events?limit=200',
    ]) {
      const res = await e2e.t.request({ method: 'GET', url });
      expect(res.status, url).toBe(200);
      expect(res.raw, url).not.toContain(canary);
    }
    // Every row of every table, as text: the Secret is stored sealed, never as its value.
    const tables = (await e2e.t.database.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()')).rows;
    expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(['secrets', 'audit_events', 'agent_revisions', 'work_items']));
    for (const { tablename } of tables) {
      const { rows } = await e2e.t.database.query<{ row: string }>(`SELECT t::text AS row FROM "${tablename}" t`);
      expect(
        rows.filter((r) => r.row.includes(canary)),
        tablename,
      ).toEqual([]);
    }
    const files = filesUnder(e2e.dataDir);
    expect(files.length).toBeGreaterThan(10);
    const needle = Buffer.from(canary);
    const holding = files.filter((file) => statSync(file).size < 256 * 1024 * 1024 && readFileSync(file).includes(needle));
    expect(holding).toEqual([]);
  });

  it(
    '[P-6][K-1][K-3][K-4][K-7][N-7][N-8][W-2] a candidate whose package fails its integrity check fails the deploy with the runtime failure code and its gateway never starts; it never leaves the Agent dark: revision 1 is back serving, the pointer never moved, and it answers a message with its Secret',
    async () => {
      const first = revisionId;
      const patched = await e2e.t.request({
        method: 'PATCH',
        url: target.url,
        body: { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true }, [`openclaw:${TAMPERED.package}`]: { enabled: true } } },
      });
      expect(patched.status, patched.raw).toBe(200);
      const candidate = await admit(e2e.t, target);
      // Recreate: revision 1 stops while revision 2 installs; revision 2's tampered package fails verification.
      const failed = await waitTerminal(e2e.t, target, candidate.id, DEPLOY_MS);
      // One attempt (this file's maxAttempts), then failed with the runtime's code; the admitted warnings are the attempt's: none.
      expect(failed).toMatchObject({
        state: 'failed',
        active: false,
        attempts: 1,
        warnings: [],
        error: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'The runtime did not start (PLUGIN_VERIFICATION_FAILED).' },
      });
      const failedAt = Date.now();
      expect(await activeRevisionId(e2e.t, target)).toBe(first);
      // The failed candidate was stopped; native inspection named the integrity check, and its gateway never started.
      expect(await e2e.compute().describeRuntime({ namespaceId: target.ns, agentId: target.agentId }, candidate.id)).toMatchObject({ running: false });
      const candidateEvents = e2e.events(target, candidate.id);
      expect(candidateEvents.filter((e) => e.event === 'plugin.verify.failed')).toContainEqual(
        expect.objectContaining({ selectionKey: `openclaw:${TAMPERED.package}`, checks: ['integrity'] }),
      );
      expect(candidateEvents.filter((e) => e.event === 'gateway.started')).toEqual([]);
      const candidateLogs = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${candidate.id}/runtime/logs?tail=1000` });
      expect(candidateLogs.status).toBe(200);
      expect(candidateLogs.body.data.lines.length).toBeGreaterThan(0);
      expect(candidateLogs.body.data.lines.filter((line: string) => line.includes('[gateway]'))).toEqual([]);

      // Revision 1's runtime comes back on its own (same revision, same Agent state), Secrets re-delivered.
      const back = await waitFor(
        'revision 1 to serve again',
        async () => (await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${first}/runtime` })).body.data,
        (view) => view.running && view.ready,
        // Re-preparing (uninstall the candidate's plugins, refresh, verify, read back the gateway's tools) under a loaded suite.
        BRING_BACK_MS,
        500,
      );
      console.log(`candidate failed → revision 1 serving again: ${Date.now() - failedAt} ms`);
      expect(back).toMatchObject({ phase: 'ready', deliveredSecrets: [KEY_VARIABLE], lastFailureCode: null });
      const logs = await e2e.t.request({ method: 'GET', url: `${target.url}/deployments/${first}/runtime/logs?tail=1000` });
      expect(logs.body.data.lines.some((line: string) => line.includes(`brought back after candidate ${candidate.id} failed`))).toBe(true);
      const { port, token } = gateway();
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { authorization: `Bearer ${token}` } });
      expect(ready.status).toBe(200);

      const mark = model.completions().length;
      const answer = await sendMessage('Are you still there?');
      expect(answer.status).toBe(200);
      expect(answer.body.choices[0].message.content).toBe('scripted answer');
      const [request] = model.completions().slice(mark);
      expect(request!.headers.authorization).toBe(`Bearer ${canary}`);
      expect(request!.toolNames).toContain('fixture_echo');
    },
    DEPLOY_MS + BRING_BACK_MS + TURN_MS,
  );
});
