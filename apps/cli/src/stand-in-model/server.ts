import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * OCC's stand-in model (`occ stand-in-model`): NOT a language model. A loopback HTTP server
 * speaking the OpenAI Chat Completions wire format (`POST /v1/chat/completions`, streamed as
 * server-sent events or as one JSON body; `GET /v1/models`) that answers every request with a
 * fixed explanation and an echo of the last user message. It lets a newcomer without a model
 * provider finish the quickstart: deploy an Agent whose model it is and see a message go through
 * OCC to the Agent and back. It calls no tool and remembers nothing.
 */

export const STAND_IN_MODEL_ID = 'occ-stand-in';
export const STAND_IN_NOTE =
  "This is OCC's stand-in model, not a language model: it answers every message with this note and an echo of what you said. Configure a real model provider to get real answers (docs/quickstart.md, step 3).";
/** The largest request body read (OpenClaw sends its system prompt and every tool's schema). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_ECHO_CHARS = 2_000;

export interface StandInModel {
  /** `http://127.0.0.1:<port>/v1`: a Configuration's `models.providers.<id>.baseUrl`. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The text of one message's content (a string, or the text parts of a content array). */
function textOf(message: Record<string, unknown>): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content.flatMap((part) => (isObject(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

/**
 * OpenClaw adds its own context for the model to the person's message, or as a user message of
 * its own: blocks between these markers (open exec sessions, subagents…) and a `Runtime: agent=…`
 * line (session, host, model). Not what the person said, so not echoed (seen behind the real gateway).
 */
const OPENCLAW_CONTEXT_BLOCK = /<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g;
const OPENCLAW_RUNTIME_LINE = /^Runtime: agent=.*$/gm;

/** What the person said last: the newest user message with text outside OpenClaw's context blocks. */
export function lastUserText(body: unknown): string {
  const messages = isObject(body) && Array.isArray(body.messages) ? body.messages : [];
  for (const message of [...messages].reverse()) {
    if (!isObject(message) || message.role !== 'user') continue;
    const said = textOf(message).replace(OPENCLAW_CONTEXT_BLOCK, '').replace(OPENCLAW_RUNTIME_LINE, '').trim();
    if (said !== '') return said;
  }
  return '';
}

/** What the stand-in says to a request. */
export function standInAnswer(body: unknown): string {
  const said = lastUserText(body);
  const echo = said.length > MAX_ECHO_CHARS ? `${said.slice(0, MAX_ECHO_CHARS)}…` : said;
  return echo ? `${STAND_IN_NOTE}\n\nYou said: ${echo}` : STAND_IN_NOTE;
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The streamed form OpenAI clients (OpenClaw's included) read: a role delta, the text, the finish, optional usage, `[DONE]`. */
function sendStream(res: ServerResponse, id: string, text: string, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: STAND_IN_MODEL_ID, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  if (includeUsage) chunk([], { usage: USAGE });
  res.end('data: [DONE]\n\n');
}

async function handle(req: IncomingMessage, res: ServerResponse, sequence: () => number): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'GET' && /\/models\/?$/.test(path)) {
    return sendJson(res, 200, { object: 'list', data: [{ id: STAND_IN_MODEL_ID, object: 'model', created: 0, owned_by: 'occ' }] });
  }
  if (req.method !== 'POST' || !/\/chat\/completions\/?$/.test(path))
    return sendJson(res, 404, { error: { message: 'Not found: the stand-in model serves POST /v1/chat/completions and GET /v1/models.', type: 'invalid_request_error' } });
  const raw = await readBody(req);
  if (raw === null) return sendJson(res, 413, { error: { message: 'Request too large.', type: 'invalid_request_error' } });
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return sendJson(res, 400, { error: { message: 'The body is not JSON.', type: 'invalid_request_error' } });
  }
  const text = standInAnswer(body);
  const id = `chatcmpl-occ-stand-in-${sequence()}`;
  if (isObject(body) && body.stream === true) {
    return sendStream(res, id, text, isObject(body.stream_options) && body.stream_options.include_usage === true);
  }
  sendJson(res, 200, {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: STAND_IN_MODEL_ID,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: USAGE,
  });
}

/** Starts the stand-in on 127.0.0.1 (`port` 0: one the OS picks). It never listens on another address. */
export async function startStandInModel(port = 0): Promise<StandInModel> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    void handle(req, res, () => ++count).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: 'stand-in model failure', type: 'server_error' } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${bound}/v1`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
