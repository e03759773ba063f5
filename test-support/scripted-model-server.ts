// A scripted stand-in for a model provider: a loopback HTTP server speaking the OpenAI Chat
// Completions wire format (`POST …/chat/completions`, streamed as server-sent events or as one JSON
// body, and `GET …/models`). No model runs here — a model provider is the one peer that cannot
// run on this machine — so it answers from a script and records every request it receives
// (headers, including Authorization, the body and the tool names it was offered), which is how
// the e2e tests see what an OpenClaw gateway sends to its model. Test support only.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isObject, listenOnLoopback, parseJson, readBody, sendJson } from './scripted-http.ts';

/** What the scripted model answers to one chat completion request. */
export type ScriptedReply =
  | { kind: 'text'; text: string }
  /** `namespace`: the Responses API's tool namespace (Codex offers an MCP server's tools in one); chat completions ignore it. */
  | { kind: 'tool-call'; name: string; arguments: Record<string, unknown>; namespace?: string };

export interface RecordedModelRequest {
  method: string;
  /** The request path, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; `undefined` without one (or when it is not JSON). */
  body: unknown;
  /** The names of the function tools the request offered (`tools[].function.name`), in order. */
  toolNames: string[];
}

export interface ScriptedModelServer {
  /** The OpenAI-compatible base URL, `http://127.0.0.1:<port>/v1` (OpenClaw's `models.providers.<id>.baseUrl`). */
  baseUrl: string;
  /** The one model id it serves. */
  modelId: string;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedModelRequest[];
  /** The chat completion requests only. */
  completions(): RecordedModelRequest[];
  /** Replies for the next chat completions, in order; once they run out `fallback` answers. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Drops the replies still queued (a turn that never finished, its gateway gone, left them); returns how many. */
  discard(): number;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  modelId?: string;
  /** The answer when no enqueued reply is left. */
  fallback?: ScriptedReply;
}

export async function startScriptedModelServer(options: ScriptedModelOptions = {}): Promise<ScriptedModelServer> {
  const modelId = options.modelId ?? 'scripted-model';
  const fallback: ScriptedReply = options.fallback ?? { kind: 'text', text: 'scripted answer' };
  const requests: RecordedModelRequest[] = [];
  const queue: ScriptedReply[] = [];
  let sequence = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'scripted model server failure', type: 'server_error' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const raw = await readBody(req);
    const body = parseJson(raw);
    requests.push({ method: req.method ?? '', path, headers: { ...req.headers }, body, toolNames: offeredToolNames(body) });
    if (req.method === 'GET' && path.endsWith('/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'scripted' }] });
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      return;
    }
    const reply = queue.shift() ?? fallback;
    const id = `chatcmpl-scripted-${++sequence}`;
    const stream = isObject(body) && body.stream === true;
    if (stream) sendStream(res, id, modelId, reply, isObject(body) && isObject(body.stream_options) && body.stream_options.include_usage === true);
    else sendJson(res, 200, completion(id, modelId, reply));
  }

  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    modelId,
    requests,
    completions: () => requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')),
    enqueue: (...replies) => void queue.push(...replies),
    discard: () => queue.splice(0).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function offeredToolNames(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool: unknown) => (isObject(tool) && isObject(tool.function) && typeof tool.function.name === 'string' ? [tool.function.name] : []));
}

const USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

function assistantMessage(reply: ScriptedReply, callId: string) {
  if (reply.kind === 'text') return { role: 'assistant', content: reply.text };
  const call = { id: callId, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.arguments) } };
  return { role: 'assistant', content: null, tool_calls: [call] };
}

const finishReason = (reply: ScriptedReply) => (reply.kind === 'text' ? 'stop' : 'tool_calls');

function completion(id: string, model: string, reply: ScriptedReply) {
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: assistantMessage(reply, `call_${id}`), finish_reason: finishReason(reply) }],
    usage: USAGE,
  };
}

/** The streamed form: a role delta, the content or tool-call delta, the finish chunk, optional usage, `[DONE]`. */
function sendStream(res: ServerResponse, id: string, model: string, reply: ScriptedReply, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (reply.kind === 'text') {
    chunk([{ index: 0, delta: { content: reply.text }, finish_reason: null }]);
  } else {
    const call = { index: 0, id: `call_${id}`, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.arguments) } };
    chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]);
  }
  chunk([{ index: 0, delta: {}, finish_reason: finishReason(reply) }]);
  if (includeUsage) chunk([], { usage: USAGE });
  res.end('data: [DONE]\n\n');
}
