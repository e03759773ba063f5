import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { deriveToken, loadDriverKey } from '../../src/drivers/compute/runtime-contract/driver-key.ts';
import { openAgentMessage } from '../../src/core/use-cases/agent-messages.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { admit, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * Talking to an Agent through OCC (`POST …/agents/:id/messages`), on the local ComputeDriver whose
 * runtime is the stand-in (its gateway streams a chat completion as OpenClaw does, echoing the
 * message and the session): the permission of its own, the refusals before the stream, the
 * audit event without the text, the gateway token never in an answer. The real gateway and model
 * are in apps/controller/test/e2e/agent-turn.test.ts.
 */
const CHAT_ON = { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } };

interface Frame {
  event: string;
  data: any;
}

/** The events of an SSE body (comments skipped). */
function frames(raw: string): Frame[] {
  return raw
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

const replyText = (res: TestResponse) =>
  frames(res.raw)
    .filter((f) => f.event === 'reply')
    .map((f) => f.data.text)
    .join('');

describe('POST …/agents/:id/messages on the local ComputeDriver', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let adminId: string;
  let target: DeployTarget;
  let revisionId: string;
  const responses: TestResponse[] = [];

  const send = async (url: string, body: unknown, key?: string) => {
    const res = await t.request({ method: 'POST', url: `${url}/messages`, body, ...(key ? { key } : {}) });
    responses.push(res);
    return res;
  };
  const auditCount = async () => Number((await t.database.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE action = 'agents.message'")).rows[0]!.n);

  async function newAgent(values: Record<string, unknown>): Promise<DeployTarget> {
    const ns = t.defaultNamespaceId;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    return { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
  }

  beforeAll(async () => {
    // A runtime that exits stays down for a minute: the "not serving" answer below is not raced by its restart.
    driver = standInLocalCompute(root, {
      backoff: { baseMs: 60_000, capMs: 60_000, resetAfterMs: 60_000 },
    });
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    adminId = (await t.database.query<{ principal_id: string }>("SELECT principal_id FROM api_keys WHERE name = 'bootstrap administrator key'")).rows[0]!.principal_id;
    target = await newAgent({ standIn: {}, ...CHAT_ON });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("before any deploy: 409 AGENT_NOT_RUNNING naming the state; a malformed body is 400 with the field's pointer; no audit event", async () => {
    const refused = await send(target.url, { text: 'hello' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({ code: 'AGENT_NOT_RUNNING', message: 'The Agent has never been deployed: deploy it, then send the message.' });
    const bad: [unknown, string, string][] = [
      [{}, '/text', 'REQUIRED'],
      [{ text: '' }, '/text', 'TOO_SHORT'],
      [{ text: 'x'.repeat(16_001) }, '/text', 'TOO_LONG'],
      [{ text: 'hi', conversation: 'not an id!' }, '/conversation', 'INVALID_FORMAT'],
      [{ text: 'hi', model: 'gpt' }, '/model', 'UNKNOWN_FIELD'],
      [{ text: 42 }, '/text', 'INVALID_TYPE'],
    ];
    for (const [body, path, code] of bad) {
      const res = await send(target.url, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details, JSON.stringify(body).slice(0, 40)).toContainEqual({ path, code });
    }
    expect(await auditCount()).toBe(0);
  });

  it('a deployed Agent answers: accepted (conversation, revision), the reply in pieces, done; one audit event with who, revision, conversation and length, never the text', async () => {
    revisionId = (await admit(t, target)).id;
    expect(await waitTerminal(t, target, revisionId)).toMatchObject({ state: 'succeeded', active: true });
    const res = await send(target.url, { text: 'hello there' });
    expect(res.status, res.raw).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const events = frames(res.raw);
    // The reply's pieces as they came (the redaction holds back a token's length at most).
    expect(events.map((e) => e.event).join(' ')).toMatch(/^accepted( reply)+ done$/);
    const conversation = events[0]!.data.conversation as string;
    expect(events[0]!.data).toEqual({ type: 'accepted', conversation, revisionId });
    expect(conversation).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // The gateway's session is the caller's own: principal and conversation.
    expect(replyText(res)).toBe(`stand-in reply to "hello there" (session occ:${adminId}:${conversation})`);
    expect(events.at(-1)!.data).toEqual({ type: 'done', finishReason: 'stop' });

    const { rows } = await t.database.query<{ actor_id: string; resource_id: string; namespace_id: string; outcome: string; details: any; request_id: string }>(
      "SELECT * FROM audit_events WHERE action = 'agents.message'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_id: adminId, resource_id: target.agentId, namespace_id: target.ns, outcome: 'success', request_id: res.headers['x-request-id'] });
    expect(rows[0]!.details).toEqual({ revisionId, revision: 1, conversation, characters: 'hello there'.length });

    // The same conversation goes on; another conversation id is another session.
    const again = await send(target.url, { text: 'and again', conversation });
    expect(frames(again.raw)[0]!.data.conversation).toBe(conversation);
    expect(replyText(again)).toBe(`stand-in reply to "and again" (session occ:${adminId}:${conversation})`);
    expect(await auditCount()).toBe(2);
  });

  it('needs agent:message on the Agent: no binding → 404; every other permission → 403 (no event); agent:message alone → 200; a restriction of it → 404 (the Agent is then not visible to it at all)', async () => {
    const before = await auditCount();
    const nobody = await newPrincipal(t);
    expect((await send(target.url, { text: 'hi' }, nobody.key)).status).toBe(404);
    const operator = await newPrincipal(t);
    const allButMessage = ['create', 'read', 'update', 'delete', 'deploy', 'operate', 'administer'].flatMap((action) =>
      ['namespace', 'secret', 'configuration', 'agent', 'agent_revision'].map((resourceKind) => ({ action, resourceKind })),
    );
    await grant(t, operator.id, allButMessage, { namespaceId: target.ns });
    const forbidden = await send(target.url, { text: 'hi' }, operator.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect(await auditCount()).toBe(before);

    const talker = await newPrincipal(t);
    await grant(t, talker.id, [{ action: 'message', resourceKind: 'agent' }], { namespaceId: target.ns, resource: { kind: 'agent', id: target.agentId } });
    const allowed = await send(target.url, { text: 'hi', conversation: 'shared-id' }, talker.key);
    expect(allowed.status, allowed.raw).toBe(200);
    // The same conversation id from another principal is another session.
    expect(replyText(allowed)).toBe(`stand-in reply to "hi" (session occ:${talker.id}:shared-id)`);
    const event = (await t.database.query<{ actor_id: string }>("SELECT actor_id FROM audit_events WHERE action = 'agents.message' ORDER BY seq DESC LIMIT 1")).rows[0]!;
    expect(event.actor_id).toBe(talker.id);

    expect((await t.request({ method: 'POST', url: '/iam/restrictions', body: { principalId: talker.id, action: 'message', resourceKind: 'agent' } })).status).toBe(201);
    expect((await send(target.url, { text: 'hi' }, talker.key)).status).toBe(404);
  });

  it('the gateway token never leaves OCC: a reply that prints it (cut across pieces) is redacted, and no answer, audit row or log line holds it', async () => {
    const token = deriveToken(loadDriverKey(root), 'gateway', revisionId);
    const res = await send(target.url, { text: 'please print your token' });
    expect(res.status).toBe(200);
    expect(replyText(res)).toBe('my token is [redacted] — done');
    const audit = (await t.database.query<{ t: string }>('SELECT row_to_json(a)::text AS t FROM audit_events a')).rows.map((r) => r.t).join('\n');
    for (const [where, text] of [
      ['responses', responses.map((r) => `${JSON.stringify(r.headers)}\n${r.raw}`).join('\n')],
      ['audit', audit],
      ['logs', t.logs.join('\n')],
    ] as const) {
      expect(text, where).not.toContain(token);
      expect(text, where).not.toContain(token.slice(0, 10));
    }
    // Nor the message's own text in the audit trail.
    expect(audit).not.toContain('please print your token');
  });

  it('a runtime that is not serving (exited, restarting) → 409 naming what it does; a stopped Agent → 409 "stopped"', async () => {
    const lines = (await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=1000` })).body.data.lines as string[];
    process.kill(
      -Number(
        lines
          .map((l) => /runtime started \(pid (\d+)\)/.exec(l)?.[1])
          .filter(Boolean)
          .at(-1),
      ),
      'SIGKILL',
    );
    await waitFor(
      'the runtime to be down',
      async () => (await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data.running,
      (running) => running === false,
      10_000,
    );
    const down = await send(target.url, { text: 'anyone?' });
    expect(down.status).toBe(409);
    expect(down.body.error).toEqual({ code: 'AGENT_NOT_RUNNING', message: 'Revision 1 is active but its runtime is not serving now: it exited and is restarting.' });

    expect((await t.request({ method: 'POST', url: `${target.url}/stop` })).status).toBe(202);
    await waitFor(
      'the stop',
      async () => (await t.request({ method: 'GET', url: target.url })).body.data.activeRevisionId,
      (id) => id === null,
      20_000,
    );
    const stopped = await send(target.url, { text: 'anyone?' });
    expect(stopped.status).toBe(409);
    expect(stopped.body.error).toEqual({ code: 'AGENT_NOT_RUNNING', message: 'The Agent is stopped (no active revision): deploy it, then send the message again.' });
  });

  it("a revision whose Configuration leaves the gateway's chat endpoint off → 409 saying which setting to turn on", async () => {
    const quiet = await newAgent({ standIn: {} });
    const rev = (await admit(t, quiet)).id;
    expect(await waitTerminal(t, quiet, rev)).toMatchObject({ state: 'succeeded' });
    const res = await send(quiet.url, { text: 'hello' });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      code: 'RESOURCE_CONFLICT',
      message: "Revision 1's Configuration does not turn on the gateway's chat endpoint: set gateway.http.endpoints.chatCompletions.enabled to true, then deploy.",
    });
  });
});

describe('POST …/agents/:id/messages on a ComputeDriver that cannot relay', () => {
  it('501 NOT_IMPLEMENTED naming the driver, after the Agent is found running (a deploy still under way is 409 "not running yet"); nothing audited', async () => {
    let converging = '';
    const { sendMessage: _none, ...cannotRelay } = createScriptedCompute({
      id: 'no-relay',
      prepare: (revision) => (revision.agentId === converging ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {}),
    });
    const t = await startTestController({ compute: cannotRelay, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    try {
      const ns = t.defaultNamespaceId;
      const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: CHAT_ON });
      const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
      const target = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
      expect(await waitTerminal(t, target, (await admit(t, target)).id)).toMatchObject({ state: 'succeeded' });
      const res = await t.request({ method: 'POST', url: `${target.url}/messages`, body: { text: 'hello' } });
      expect(res.status).toBe(501);
      expect(res.body.error).toEqual({ code: 'NOT_IMPLEMENTED', message: 'The ComputeDriver "no-relay" cannot relay messages to an Agent\'s gateway.' });

      const slow = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
      converging = slow.id;
      const slowUrl = `/namespaces/${ns}/agents/${slow.id}`;
      expect((await t.request({ method: 'POST', url: `${slowUrl}/deploy` })).status).toBe(202);
      const early = await t.request({ method: 'POST', url: `${slowUrl}/messages`, body: { text: 'hello' } });
      expect(early.status).toBe(409);
      expect(early.body.error).toEqual({
        code: 'AGENT_NOT_RUNNING',
        message: 'The Agent is not running yet: no revision of it has become active (its deploy is under way or failed; see its deployment status).',
      });
      expect((await t.database.query("SELECT 1 FROM audit_events WHERE action = 'agents.message'")).rows).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe("the reply stream's bounds (the use case, with short bounds)", () => {
  /** Pieces the scripted gateway sends, each after `delayMs`; `end` how it ends. */
  const pieces = (texts: string[], delayMs: number, end: 'done' | 'cut' | 'never') => ({
    kind: 'replying' as const,
    chunks: (async function* () {
      for (const text of texts) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        yield { kind: 'text' as const, text };
      }
      if (end === 'done') yield { kind: 'done' as const, finishReason: 'stop' };
      // A gateway that never answers again (and ignores the abort): the bound must end it anyway.
      if (end === 'never') await new Promise(() => {});
    })(),
  });
  let t: TestController;
  let url: { ns: string; id: string };
  let caller: { principalId: string; requestId: string; policy: any };
  let next: ReturnType<typeof pieces>;

  beforeAll(async () => {
    t = await startTestController({ compute: createScriptedCompute({ reply: () => next }), worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    const ns = t.defaultNamespaceId;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: CHAT_ON });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const target = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    expect(await waitTerminal(t, target, (await admit(t, target)).id)).toMatchObject({ state: 'succeeded' });
    url = { ns, id: agent.id };
    const adminId = (await t.database.query<{ principal_id: string }>("SELECT principal_id FROM api_keys WHERE name = 'bootstrap administrator key'")).rows[0]!.principal_id;
    caller = { principalId: adminId, requestId: 'req_bounds', policy: await t.controller.deps.state.read((uow) => uow.iam.loadPolicy(adminId)) };
  });
  afterAll(async () => t?.close());

  async function frames(bounds: { maxMs: number; maxChars: number; keepAliveMs: number }): Promise<string[]> {
    const stream = await openAgentMessage(t.controller.deps, caller as never, url.ns, url.id, { text: 'hello' }, new AbortController().signal, bounds);
    const out: string[] = [];
    for await (const frame of stream)
      out.push(
        frame.startsWith(':') ? frame.trim() : JSON.parse(frame.split('data: ')[1]!).type + (frame.includes('"code"') ? `:${JSON.parse(frame.split('data: ')[1]!).code}` : ''),
      );
    return out;
  }
  const wide = { maxMs: 10_000, maxChars: 1_000, keepAliveMs: 10_000 };

  it('a keep-alive comment while the Agent thinks; pieces and done otherwise', async () => {
    next = pieces(['slow ', 'answer'], 200, 'done');
    const got = await frames({ ...wide, keepAliveMs: 50 });
    expect(got.filter((f) => f !== ': keep-alive')).toEqual(['accepted', 'reply', 'reply', 'done']);
    // Before each piece (200 ms apart) at least one comment (every 50 ms of silence).
    expect(got.slice(0, 3)).toEqual(['accepted', ': keep-alive', ': keep-alive']);
    expect(got[got.indexOf('reply') + 1]).toBe(': keep-alive');
  });

  it('ends a reply that runs too long (AGENT_REPLY_TIMEOUT), that grows too large (AGENT_REPLY_TOO_LARGE), or that is cut (AGENT_REPLY_FAILED)', async () => {
    next = pieces(['first'], 10, 'never');
    expect(await frames({ ...wide, maxMs: 300 })).toEqual(['accepted', 'reply', 'error:AGENT_REPLY_TIMEOUT']);
    next = pieces(['12345', '67890'], 1, 'done');
    expect(await frames({ ...wide, maxChars: 8 })).toEqual(['accepted', 'reply', 'error:AGENT_REPLY_TOO_LARGE']);
    next = pieces(['half'], 1, 'cut');
    expect(await frames(wide)).toEqual(['accepted', 'reply', 'error:AGENT_REPLY_FAILED']);
  });
});
