// The Codex turn of the deploy-codex bench: one message to a deployed Codex Agent through OCC's
// message route (`POST …/agents/:id/messages`, request → `done`), against two baselines measured
// in the same process, on the same scripted model (test-support/scripted-responses-server.ts,
// behind OCC_CODEX_MODEL_URL) with the same codex_pat signed in at the same fake hosted service
// (test-support/codex-agent-world.ts, as apps/controller/test/e2e/codex-lifecycle.test.ts sets
// them up):
// - the floor: the same request sent straight to the Agent's gateway (`POST /v1/chat/completions`,
//   `stream: true`, the body OCC's relay sends, apps/controller/src/drivers/compute/
//   runtime-contract/gateway-chat.ts), request → `[DONE]`. Same gateway, harness, app-server and
//   model, so OCC/floor is OCC's relay: API key, IAM, audit, the runtime's status check,
//   re-streaming, redaction.
// - Codex alone: the same pinned `codex app-server`, started as the runtime starts the Agent's own
//   (test-support/real-codex-app-server.ts) with the Installation's settings as OCC hands them to
//   the runtime (codexRuntimeSettings), answering `thread/start` + `turn/start` over its own
//   protocol, request → `turn/completed`. floor/Codex alone is what OpenClaw's gateway and its
//   Codex harness add to a turn (not OCC's work, but what every Codex Agent pays).
// Every timed turn must come back with the scripted answer, so it went through Codex to the model.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { readEventStream } from '@occ/contracts/client';
import { codexRuntimeSettings } from '../apps/controller/src/drivers/compute/runtime-contract/codex-settings.ts';
import type { AppServerNotification } from '../apps/runtime/src/codex/app-server-client.ts';
import { createCodexAgent, startCodexBackends, type CodexBackends } from '../test-support/codex-agent-world.ts';
import { localGateway } from '../test-support/local-gateway.ts';
import { startRealCodexAppServer, type RealCodexAppServer } from '../test-support/real-codex-app-server.ts';
import type { GatewayAddress } from '../test-support/scripted-agent-turn.ts';
import type { ScriptedResponsesServer } from '../test-support/scripted-responses-server.ts';
import { startBenchController, waitForDeployment, type BenchController } from './bench-controller.ts';

/** The model the Codex harness asks for (apps/runtime/src/codex/gateway-config.ts); Codex alone asks for the same. */
const CODEX_MODEL = 'gpt-5.5';

export interface TurnFigures {
  /** POST deploy → succeeded of the Agent that answers (signed in with its codex_pat). */
  deployMs: number;
  /** The Agent's first turn, through OCC (a cold Codex thread), and Codex alone's first. */
  firstMs: number;
  codexFirstMs: number;
  /** The rounds after them, each one request → whole reply: through OCC, to the gateway, Codex alone. */
  occMs: number[];
  floorMs: number[];
  codexMs: number[];
}

type Send = (text: string) => Promise<string>;

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

/** Times one turn; the reply must carry the scripted model's answer, so the turn went through Codex to it. */
async function timedTurn(model: ScriptedResponsesServer, send: Send): Promise<number> {
  const answer = `codex answers ${randomBytes(4).toString('hex')}`;
  const turnsBefore = model.turns().length;
  model.enqueue({ kind: 'text', text: answer });
  const started = performance.now();
  const reply = await send('Hello from the bench');
  const ms = performance.now() - started;
  if (!reply.includes(answer) || model.turns().length === turnsBefore) throw new Error(`the turn was not answered by the scripted model through Codex: ${JSON.stringify(reply)}`);
  return ms;
}

/** One message through OCC's route; the reply's text once `done` arrived. */
async function turnThroughOcc(bench: BenchController, agentUrl: string, text: string): Promise<string> {
  const response = await bench.request('POST', `${agentUrl}/messages`, { text });
  const type = (data: string) => (JSON.parse(data) as { type: string }).type;
  return readReply(
    response,
    (_event, data) => (type(data) === 'done' ? 'done' : type(data) === 'error' ? 'failed' : 'text'),
    (data) => (JSON.parse(data) as { text?: string }).text ?? '',
  );
}

/** The same message straight to the gateway, as OCC's relay sends it (a new session each). */
async function turnToGateway(gateway: GatewayAddress, text: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: 'openclaw/default', stream: true, user: `bench-${randomBytes(6).toString('hex')}`, messages: [{ role: 'user', content: text }] }),
  });
  const parsed = (data: string) => JSON.parse(data) as { error?: unknown; choices?: Array<{ delta?: { content?: string } }> };
  return readReply(
    response,
    (_event, data) => (data.trim() === '[DONE]' ? 'done' : parsed(data).error ? 'failed' : 'text'),
    (data) => parsed(data).choices?.[0]?.delta?.content ?? '',
  );
}

interface CodexAlone {
  send: Send;
  stop(): Promise<void>;
}

/**
 * The Agent's Codex without OCC or OpenClaw: the same pinned app-server, CODEX_HOME and environment
 * built the runtime's way from the Installation's settings, signed in with the same codex_pat. A
 * message is a new thread (as each floor turn is a new gateway session) and one turn on it; the
 * reply is the agent messages Codex completed, once `turn/completed` says the turn completed.
 */
async function startCodexAlone(backends: CodexBackends, pat: string, root: string): Promise<CodexAlone> {
  const settings = codexRuntimeSettings(backends.localInstallationEnv);
  if (settings.chatgptBaseUrl === null || settings.authBaseUrl === null) throw new Error('the Installation names no hosted service');
  const turns = new Map<string, { text: string; resolve: (text: string) => void; reject: (error: Error) => void }>();
  const onNotification = ({ method, params }: AppServerNotification) => {
    const event = params as { threadId?: string; item?: { type?: string; text?: string }; turn?: { status?: string; error?: unknown } };
    const turn = turns.get(event.threadId ?? '');
    if (!turn) return;
    if (method === 'item/completed' && event.item?.type === 'agentMessage') turn.text += event.item.text ?? '';
    if (method !== 'turn/completed') return;
    turns.delete(event.threadId!);
    if (event.turn?.status === 'completed') turn.resolve(turn.text);
    else turn.reject(new Error(`Codex's turn ended ${event.turn?.status}: ${JSON.stringify(event.turn?.error)}`));
  };
  const appServer: RealCodexAppServer = await startRealCodexAppServer({
    root,
    accessToken: pat,
    chatgptBaseUrl: settings.chatgptBaseUrl,
    authBaseUrl: settings.authBaseUrl,
    modelBaseUrl: settings.modelBaseUrl,
    network: runtimeNetworkEnvironment(process.env, { caFile: backends.caFile }),
    onNotification,
    requestTimeoutMs: 120_000,
  });
  const send = async (text: string) => {
    const { thread } = await appServer.client.request<{ thread: { id: string } }>('thread/start', {
      model: CODEX_MODEL,
      cwd: appServer.workspace,
      approvalPolicy: 'never',
      sandbox: 'read-only',
    });
    const reply = new Promise<string>((resolve, reject) => turns.set(thread.id, { text: '', resolve, reject }));
    await appServer.client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text, text_elements: [] }] });
    return reply;
  };
  return { send, stop: () => appServer.stop() };
}

/**
 * Deploys a Codex Agent (codex_pat bound, the chat endpoint on, `selections`) on a fresh
 * controller, sends one first turn through OCC and one to Codex alone, then `turns` rounds of one
 * turn each way: through OCC, to the gateway directly, to Codex alone (the order rotates).
 */
export async function benchCodexTurn(marketplaceRoot: string, selections: Record<string, { enabled: boolean }>, turns: number): Promise<TurnFigures> {
  const pat = `at-bench-${randomBytes(16).toString('hex')}`;
  const backends = await startCodexBackends({ pat, accountId: 'acct-bench' });
  const { model } = backends;
  const codexRoot = mkdtempSync(join(tmpdir(), 'occ-bench-codex-alone-'));
  let bench: BenchController | undefined;
  let codexAlone: CodexAlone | undefined;
  try {
    bench = await startBenchController({ ...process.env, OCC_CODEX_MARKETPLACES: marketplaceRoot, ...backends.localInstallationEnv }, { pollMs: 50, convergencePollMs: 100 });
    const controller = bench;
    const ns = controller.namespaceId;
    const { agent } = await createCodexAgent((url, body) => controller.call('POST', url, body, 201), ns, { pat, plugins: selections });
    const agentUrl = `/namespaces/${ns}/agents/${agent.id}`;
    const deployStarted = performance.now();
    const revision = await controller.call('POST', `${agentUrl}/deploy`, undefined, 202);
    const status = await waitForDeployment(controller, agentUrl, revision.id, 100);
    if (status.state !== 'succeeded') throw new Error(`codex deploy for the turn ended ${JSON.stringify(status)}`);
    const deployMs = performance.now() - deployStarted;
    const gateway = localGateway(controller.dataDir, agent.id, revision.id);
    const viaOcc: Send = (text) => turnThroughOcc(controller, agentUrl, text);
    const direct: Send = (text) => turnToGateway(gateway, text);
    const firstMs = await timedTurn(model, viaOcc);
    codexAlone = await startCodexAlone(backends, pat, codexRoot);
    const codexFirstMs = await timedTurn(model, codexAlone.send);
    const figures = { occMs: [] as number[], floorMs: [] as number[], codexMs: [] as number[] };
    const ways: Array<[number[], Send]> = [
      [figures.occMs, viaOcc],
      [figures.floorMs, direct],
      [figures.codexMs, codexAlone.send],
    ];
    for (let i = 0; i < turns; i += 1) {
      // Round i starts with way i mod 3: drift on a shared machine falls on every side.
      for (let k = 0; k < ways.length; k += 1) {
        const [times, send] = ways[(i + k) % ways.length]!;
        times.push(await timedTurn(model, send));
      }
    }
    return { deployMs, firstMs, codexFirstMs, ...figures };
  } finally {
    await codexAlone?.stop();
    await bench?.close();
    await backends.close();
    rmSync(codexRoot, { recursive: true, force: true });
  }
}
