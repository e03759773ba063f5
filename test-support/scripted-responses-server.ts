// A scripted stand-in for the model provider behind Codex: a loopback server speaking OpenAI's
// Responses API as Codex's built-in `openai` provider calls it — a WebSocket on `GET …/responses`
// first (one `response.create` text frame per request, one frame per event back), and
// `POST …/responses` streamed as server-sent events when the upgrade is refused. No model runs
// here (a model provider cannot run on this machine); it answers from a script and records every
// request with its transport and headers, which is how tests prove a turn came from Codex.
// Wire format: docs/plans/codex-harness.md ("Findings of 2026-12-04"). Test support only.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ScriptedReply } from './scripted-model-server.ts';
import { isObject, listenOnLoopback, parseJson, readBody, sendJson } from './scripted-http.ts';

export interface RecordedResponsesRequest {
  transport: 'websocket' | 'http';
  /** The request path (`/v1/responses`), for a WebSocket the path it upgraded on. */
  path: string;
  /** The HTTP request's headers, for a WebSocket the upgrade request's. */
  headers: IncomingHttpHeaders;
  /** The `response.create` body (the frame without its `type`, or the POSTed JSON). */
  body: Record<string, unknown>;
  /** The names of the tools the request offered (function tools and those inside namespaces). */
  toolNames: string[];
  /** What this request was: a prewarm (`generate: false`), a turn offering tools, or a utility turn offering none. */
  kind: 'prewarm' | 'turn' | 'utility';
}

/**
 * What the scripted model answers a turn with: a scripted chat reply, or a `tool_search_call` (Codex
 * runs the search itself, `execution: "client"`, and answers with a `tool_search_output` listing
 * the deferred tools it found — how Codex exposes an MCP server's tools when `tool_search` is on).
 */
export type ScriptedResponsesReply =
  | ScriptedReply
  | { kind: 'tool-search'; query: string; limit?: number }
  /** A reply decided when the turn arrives, from what came before (e.g. the namespace a search surfaced). */
  | { kind: 'later'; reply: () => ScriptedReply };

export interface ScriptedResponsesServer {
  /** Codex's `openai_base_url`: `http(s)://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedResponsesRequest[];
  /** The agent's turns only (requests that offered tools). */
  turns(): RecordedResponsesRequest[];
  /** The `function_call_output` items turns sent back, by call id: what each tool call returned. */
  toolOutputs(): Map<string, string>;
  /** The `tool_search_output` items turns sent back, by call id: the tools each search surfaced. */
  toolSearchOutputs(): Map<string, unknown[]>;
  /** Replies for the next turns, in order; once they run out the fallback answers. */
  enqueue(...replies: ScriptedResponsesReply[]): void;
  close(): Promise<void>;
}

export interface ScriptedResponsesOptions {
  /** The answer to a turn when no enqueued reply is left. */
  fallback?: ScriptedReply;
  /** Refuse the WebSocket upgrade, so Codex falls back to HTTP (server-sent events). */
  httpOnly?: boolean;
  /** Serve HTTPS (and WSS) with this certificate (test-support/throwaway-tls.ts), as an Installation's endpoint must be. */
  tls?: { cert: string; key: string };
}

const USAGE = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
/** The largest WebSocket frame accepted (a request with a long conversation). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export async function startScriptedResponsesServer(options: ScriptedResponsesOptions = {}): Promise<ScriptedResponsesServer> {
  const fallback: ScriptedReply = options.fallback ?? { kind: 'text', text: 'scripted answer' };
  const requests: RecordedResponsesRequest[] = [];
  const queue: ScriptedResponsesReply[] = [];
  let sequence = 0;

  /** Records one request and returns the events that answer it. */
  function answer(transport: RecordedResponsesRequest['transport'], path: string, headers: IncomingHttpHeaders, body: Record<string, unknown>): unknown[] {
    const toolNames = offeredToolNames(body);
    const kind: RecordedResponsesRequest['kind'] = body.generate === false ? 'prewarm' : toolNames.length > 0 ? 'turn' : 'utility';
    requests.push({ transport, path, headers: { ...headers }, body, toolNames, kind });
    const id = `resp_scripted_${++sequence}`;
    if (kind === 'prewarm')
      return [
        { type: 'response.created', response: { id } },
        { type: 'response.completed', response: { id, usage: USAGE } },
      ];
    // Utility turns (OpenClaw's activity recaps) never take a scripted reply meant for the agent.
    const next = kind === 'turn' ? (queue.shift() ?? fallback) : { kind: 'text' as const, text: 'scripted recap' };
    const reply = next.kind === 'later' ? next.reply() : next;
    const item =
      reply.kind === 'text'
        ? { type: 'message', role: 'assistant', id: `msg_${sequence}`, status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] }
        : reply.kind === 'tool-search'
          ? {
              type: 'tool_search_call',
              id: `ts_${sequence}`,
              call_id: `call_${sequence}`,
              execution: 'client',
              status: 'completed',
              arguments: { query: reply.query, ...(reply.limit === undefined ? {} : { limit: reply.limit }) },
            }
          : {
              type: 'function_call',
              id: `fc_${sequence}`,
              call_id: `call_${sequence}`,
              name: reply.name,
              ...(reply.namespace ? { namespace: reply.namespace } : {}),
              arguments: JSON.stringify(reply.arguments),
              status: 'completed',
            };
    return [
      { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage: USAGE } },
    ];
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void handleHttp(req, res).catch(() => sendJson(res, 500, { error: { message: 'scripted responses server failure', type: 'server_error' } }));
  };
  const server: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handler) : createServer(handler);

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const body = parseObject(await readBody(req));
    if (req.method !== 'POST' || !path.endsWith('/responses') || body === null) {
      sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of answer('http', path, req.headers, body)) res.write(`event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (options.httpOnly || !path.endsWith('/responses')) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('message', (data) => {
        const frame = parseObject(String(data));
        if (frame === null || frame.type !== 'response.create') return;
        const { type: _type, ...body } = frame;
        for (const event of answer('websocket', path, req.headers, body)) ws.send(JSON.stringify(event));
      });
    });
  });

  const port = await listenOnLoopback(server);
  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`,
    requests,
    turns: () => requests.filter((request) => request.kind === 'turn'),
    toolOutputs: () => outputsOf(requests, 'function_call_output', (item) => (typeof item.output === 'string' ? item.output : JSON.stringify(item.output))),
    toolSearchOutputs: () => outputsOf(requests, 'tool_search_output', (item) => (Array.isArray(item.tools) ? (item.tools as unknown[]) : [])),
    enqueue: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Function tools by name, and the tools inside a namespace (`{ type: 'namespace', tools: [...] }`). */
function offeredToolNames(body: Record<string, unknown>): string[] {
  if (!Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool: unknown) => {
    if (!isObject(tool)) return [];
    const inner = Array.isArray(tool.tools) ? tool.tools.flatMap((t: unknown) => (isObject(t) && typeof t.name === 'string' ? [t.name] : [])) : [];
    return typeof tool.name === 'string' ? [tool.name, ...inner] : inner;
  });
}

/** The JSON object in `text`; null for anything else. */
function parseObject(text: string): Record<string, unknown> | null {
  const value = parseJson(text);
  return isObject(value) ? value : null;
}

/** The input items of one type the turns sent back (over a WebSocket each request carries only new ones), by call id. */
function outputsOf<T>(requests: readonly RecordedResponsesRequest[], type: string, value: (item: Record<string, unknown>) => T): Map<string, T> {
  const outputs = new Map<string, T>();
  for (const request of requests) {
    for (const item of Array.isArray(request.body.input) ? request.body.input : []) {
      if (isObject(item) && item.type === type && typeof item.call_id === 'string') outputs.set(item.call_id, value(item));
    }
  }
  return outputs;
}
