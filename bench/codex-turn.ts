// The Codex turn of the deploy-codex bench: one message to a deployed Codex Agent through OCC's
// message route (`POST …/agents/:id/messages`, request → `done`), against its floor: the same
// request sent straight to the Agent's gateway (`POST /v1/chat/completions`, `stream: true`, the
// body OCC's relay sends, apps/controller/src/drivers/compute/runtime-contract/gateway-chat.ts),
// request → `[DONE]`. Both go to the same gateway, Codex app-server and scripted model, so their
// ratio is OCC's relay: API key, IAM, audit, the runtime's status check, re-streaming, redaction.
// The model is the scripted Responses server (test-support/scripted-responses-server.ts) behind
// OCC_CODEX_MODEL_URL; Codex signs in with a codex_pat at the fake hosted service, as in
// apps/controller/test/e2e/codex-lifecycle.test.ts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEventStream } from '@occ/contracts/client';
import { revisionPaths } from '../apps/controller/src/drivers/compute/local/layout.ts';
import { deriveToken, loadDriverKey } from '../apps/controller/src/drivers/compute/local/tokens.ts';
import { startFakeHostedCatalog } from '../test-support/fake-hosted-catalog.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../test-support/scripted-responses-server.ts';
import { throwawayTls } from '../test-support/throwaway-tls.ts';
import { startBenchController, waitForDeployment, type BenchController } from './bench-controller.ts';

export interface TurnFigures {
  /** POST deploy → succeeded of the Agent that answers (signed in with its codex_pat). */
  deployMs: number;
  /** The Agent's first turn, through OCC (a cold Codex thread). */
  firstMs: number;
  /** The alternating turns after it, each one request → whole reply. */
  occMs: number[];
  floorMs: number[];
}

interface Deployed {
  bench: BenchController;
  agentUrl: string;
  gateway: { port: number; token: string };
}

/** Reads an event stream to its end; returns the text and whether it ended as `ends` says. */
async function readReply(response: Response, ends: (event: string, data: string) => 'text' | 'done' | 'failed', text: (data: string) => string): Promise<string> {
  if (!response.ok || !response.body) throw new Error(`turn answered HTTP ${response.status}: ${await response.text()}`);
  let reply = '';
  for await (const { event, data } of readEventStream(response.body)) {
    const kind = ends(event, data);
    if (kind === 'done') return reply;
    if (kind === 'failed') throw new Error(`turn failed: ${data}`);
    reply += text(data);
  }
  throw new Error('the reply stream ended before it was done');
}

/** One message through OCC's route; the reply's text once `done` arrived. */
async function turnThroughOcc(deployed: Deployed, text: string): Promise<string> {
  const response = await deployed.bench.request('POST', `${deployed.agentUrl}/messages`, { text });
  const type = (data: string) => (JSON.parse(data) as { type: string }).type;
  return readReply(
    response,
    (_event, data) => (type(data) === 'done' ? 'done' : type(data) === 'error' ? 'failed' : 'text'),
    (data) => (JSON.parse(data) as { text?: string }).text ?? '',
  );
}

/** The same message straight to the gateway, as OCC's relay sends it (a new session each). */
async function turnToGateway(deployed: Deployed, text: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${deployed.gateway.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${deployed.gateway.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: 'openclaw/default', stream: true, user: `bench-${randomBytes(6).toString('hex')}`, messages: [{ role: 'user', content: text }] }),
  });
  const parsed = (data: string) => JSON.parse(data) as { error?: unknown; choices?: Array<{ delta?: { content?: string } }> };
  return readReply(
    response,
    (_event, data) => (data.trim() === '[DONE]' ? 'done' : parsed(data).error ? 'failed' : 'text'),
    (data) => parsed(data).choices?.[0]?.delta?.content ?? '',
  );
}

/** Times one turn; the reply must carry the scripted model's answer, so the turn went through Codex to it. */
async function timedTurn(model: ScriptedResponsesServer, send: (text: string) => Promise<string>): Promise<number> {
  const answer = `codex answers ${randomBytes(4).toString('hex')}`;
  const turnsBefore = model.turns().length;
  model.enqueue({ kind: 'text', text: answer });
  const started = performance.now();
  const reply = await send('Hello from the bench');
  const ms = performance.now() - started;
  if (!reply.includes(answer) || model.turns().length === turnsBefore) throw new Error(`the turn was not answered by the scripted model through Codex: ${JSON.stringify(reply)}`);
  return ms;
}

/** The revision's gateway port, from the runtime's own `gateway.started` log event. */
function gatewayPort(dataDir: string, agentId: string, revisionId: string): number {
  const log = readFileSync(revisionPaths(join(dataDir, 'compute', 'local'), agentId, revisionId).logFile, 'utf8');
  const started = log
    .split('\n')
    .filter((line) => line.includes('"event":"gateway.started"'))
    .at(-1);
  const port = started ? (JSON.parse(started) as { port?: unknown }).port : undefined;
  if (typeof port !== 'number') throw new Error('no gateway.started event with a port in the runtime log');
  return port;
}

/**
 * Deploys a Codex Agent (codex_pat bound, the chat endpoint on, `selections`) on a fresh
 * controller, then sends one first turn through OCC and `turns` pairs alternating OCC and the
 * gateway directly (which goes first alternates too).
 */
export async function benchCodexTurn(marketplaceRoot: string, selections: Record<string, { enabled: boolean }>, turns: number): Promise<TurnFigures> {
  const pat = `at-bench-${randomBytes(16).toString('hex')}`;
  const hosted = await startFakeHostedCatalog();
  hosted.accounts.set(pat, { accountId: 'acct-bench' });
  const modelTls = throwawayTls();
  const model = await startScriptedResponsesServer({ tls: modelTls });
  const caDir = mkdtempSync(join(tmpdir(), 'occ-bench-codex-ca-'));
  let bench: BenchController | undefined;
  try {
    const caFile = join(caDir, 'ca.pem');
    writeFileSync(caFile, `${hosted.ca.trim()}\n${modelTls.ca.trim()}\n`, { mode: 0o600 });
    bench = await startBenchController(
      {
        ...process.env,
        OCC_CODEX_MARKETPLACES: marketplaceRoot,
        OCC_CODEX_CATALOG_URL: hosted.catalogBaseUrl,
        OCC_CODEX_IDENTITY_URL: hosted.identityBaseUrl,
        OCC_RUNTIME_CA_FILE: caFile,
        OCC_CODEX_MODEL_URL: model.baseUrl,
        // The fakes listen on this host's loopback: the ports an operator shares with confined runtimes.
        OCC_LOCAL_SHARED_LOOPBACK_PORTS: `${new URL(hosted.identityBaseUrl).port},${new URL(model.baseUrl).port}`,
      },
      { pollMs: 50, convergencePollMs: 100 },
    );
    const ns = bench.namespaceId;
    const secret = await bench.call('POST', `/namespaces/${ns}/secrets`, { name: 'bench-pat', value: pat }, 201);
    const cfg = await bench.call(
      'POST',
      `/namespaces/${ns}/configurations`,
      { name: 'bench-chat', values: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } } },
      201,
    );
    const agent = await bench.call(
      'POST',
      `/namespaces/${ns}/agents`,
      { name: 'bench-codex-turn', configurationId: cfg.id, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: secret.id }, plugins: selections },
      201,
    );
    // The Agent's own principal operates its codex_pat at every start.
    const role = await bench.call('POST', '/iam/roles', { name: 'bench-pat-operator', permissions: [{ action: 'operate', resourceKind: 'secret' }] }, 201);
    await bench.call('POST', '/iam/access-bindings', { principalId: agent.servicePrincipalId, roleId: role.id, namespaceId: ns, resource: { kind: 'secret', id: secret.id } }, 201);
    const agentUrl = `/namespaces/${ns}/agents/${agent.id}`;
    const deployStarted = performance.now();
    const revision = await bench.call('POST', `${agentUrl}/deploy`, undefined, 202);
    const status = await waitForDeployment(bench, agentUrl, revision.id, 100);
    if (status.state !== 'succeeded') throw new Error(`codex deploy for the turn ended ${JSON.stringify(status)}`);
    const deployMs = performance.now() - deployStarted;
    const token = deriveToken(loadDriverKey(join(bench.dataDir, 'compute', 'local')), 'gateway', revision.id);
    const deployed: Deployed = { bench, agentUrl, gateway: { port: gatewayPort(bench.dataDir, agent.id, revision.id), token } };
    const viaOcc = (text: string) => turnThroughOcc(deployed, text);
    const direct = (text: string) => turnToGateway(deployed, text);
    const firstMs = await timedTurn(model, viaOcc);
    const occMs: number[] = [];
    const floorMs: number[] = [];
    for (let i = 0; i < turns; i += 1) {
      if (i % 2 === 0) {
        occMs.push(await timedTurn(model, viaOcc));
        floorMs.push(await timedTurn(model, direct));
      } else {
        floorMs.push(await timedTurn(model, direct));
        occMs.push(await timedTurn(model, viaOcc));
      }
    }
    return { deployMs, firstMs, occMs, floorMs };
  } finally {
    await bench?.close();
    await model.close();
    await hosted.close();
    rmSync(caDir, { recursive: true, force: true });
  }
}
