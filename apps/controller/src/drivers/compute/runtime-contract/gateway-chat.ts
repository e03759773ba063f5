import type { GatewayMessage, GatewayReply, GatewayReplyChunk } from '../../../core/ports/compute-driver.ts';
import { readEventStream } from '@occ/contracts/client';
import { redactable, redactText } from './redaction.ts';

/**
 * One message to an OpenClaw gateway's OpenAI-compatible chat endpoint
 * (`POST /v1/chat/completions`, `stream: true`), for every ComputeDriver that reaches its
 * gateways on a host loopback port (local, docker). The token is the driver's and goes in the
 * Authorization header only; the reply's text is redacted of `redact` (the runtime's tokens and
 * delivered Secret values) before it leaves here, across chunk boundaries too.
 *
 * OpenClaw routes `model: "openclaw/default"` to the configured default agent and derives a
 * stable session from `user`, so the same `session` continues the same conversation.
 */

export interface GatewayEndpoint {
  /** On the host's 127.0.0.1. */
  port: number;
  token: string;
}

/**
 * Redacts a text that arrives in pieces: everything but the last (longest secret − 1) characters
 * is released once redacted, so a secret split across pieces is still found whole.
 */
export class StreamRedactor {
  private readonly secrets: string[];
  private readonly hold: number;
  private pending = '';

  constructor(secrets: readonly string[]) {
    this.secrets = redactable(secrets);
    this.hold = Math.max(0, ...this.secrets.map((s) => s.length - 1));
  }

  private clean(text: string): string {
    return redactText(text, this.secrets);
  }

  /** The part of the text so far that can be released. */
  push(text: string): string {
    this.pending = this.clean(this.pending + text);
    let cut = Math.max(0, this.pending.length - this.hold);
    // Never split a surrogate pair.
    if (cut > 0 && cut < this.pending.length && /[\uDC00-\uDFFF]/.test(this.pending[cut]!)) cut -= 1;
    const out = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return out;
  }

  /** The rest, at the end of the reply. */
  flush(): string {
    const out = this.clean(this.pending);
    this.pending = '';
    return out;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What one parsed `data:` of the gateway's stream (or its one JSON answer) carries. */
function readCompletion(parsed: unknown): { text: string; finishReason: string | null; error: string | null } {
  if (!isObject(parsed)) return { text: '', finishReason: null, error: null };
  if (isObject(parsed.error) || typeof parsed.error === 'string') {
    const type = isObject(parsed.error) && typeof parsed.error.type === 'string' && /^[a-z_]{1,40}$/.test(parsed.error.type) ? ` (${parsed.error.type})` : '';
    return { text: '', finishReason: null, error: `The Agent's turn failed${type}; its runtime log may say why.` };
  }
  const choice = Array.isArray(parsed.choices) && isObject(parsed.choices[0]) ? parsed.choices[0] : null;
  const part = choice && (isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : null);
  const text = part && typeof part.content === 'string' ? part.content : '';
  const finishReason = choice && typeof choice.finish_reason === 'string' && /^[a-z_]{1,64}$/.test(choice.finish_reason) ? choice.finish_reason : null;
  return { text, finishReason, error: null };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function* streamedReply(response: Response, redactor: StreamRedactor): AsyncGenerator<GatewayReplyChunk> {
  const body = response.body;
  if (!body) return;
  let finishReason: string | null = null;
  const text = function* (raw: string): Generator<GatewayReplyChunk> {
    const released = redactor.push(raw);
    if (released) yield { kind: 'text', text: released };
  };
  const end = function* (): Generator<GatewayReplyChunk> {
    const rest = redactor.flush();
    if (rest) yield { kind: 'text', text: rest };
    yield { kind: 'done', finishReason };
  };
  try {
    for await (const { data } of readEventStream(body)) {
      if (data.trim() === '[DONE]') {
        yield* end();
        return;
      }
      const read = readCompletion(parseJson(data));
      if (read.error) {
        const rest = redactor.flush();
        if (rest) yield { kind: 'text', text: rest };
        yield { kind: 'failed', reason: read.error };
        return;
      }
      if (read.text) yield* text(read.text);
      if (read.finishReason) finishReason = read.finishReason;
    }
    // Ended without [DONE]: what came is released, the caller says the reply was cut.
    const rest = redactor.flush();
    if (rest) yield { kind: 'text', text: rest };
  } finally {
    await body.cancel().catch(() => {});
  }
}

async function* oneReply(response: Response, redactor: StreamRedactor): AsyncGenerator<GatewayReplyChunk> {
  const read = readCompletion(parseJson(await response.text()));
  if (read.error) {
    yield { kind: 'failed', reason: read.error };
    return;
  }
  redactor.push(read.text);
  const text = redactor.flush();
  if (text) yield { kind: 'text', text };
  yield { kind: 'done', finishReason: read.finishReason };
}

/** Why a gateway that answered did not take the message, in words. */
function refusal(status: number): string {
  if (status === 404) return "The Agent's gateway does not serve its chat endpoint (gateway.http.endpoints.chatCompletions.enabled).";
  if (status === 401 || status === 403) return "The Agent's gateway refused OCC's credential for this revision.";
  if (status === 429) return "The Agent's gateway is busy (HTTP 429); try again shortly.";
  return `The Agent's gateway answered HTTP ${status} to the message.`;
}

/**
 * Sends the message and answers once the gateway accepted it (its response headers), or why not.
 * A failure to connect is `unavailable`; an abort of `signal` is thrown as such.
 */
export async function relayToGateway(endpoint: GatewayEndpoint, message: GatewayMessage, options: { redact: readonly string[]; signal: AbortSignal }): Promise<GatewayReply> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${endpoint.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ model: 'openclaw/default', stream: true, user: message.session, messages: [{ role: 'user', content: message.text }] }),
      signal: options.signal,
      redirect: 'error',
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    return { kind: 'unavailable', reason: "The Agent's gateway did not answer." };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    return { kind: 'unavailable', reason: refusal(response.status) };
  }
  const redactor = new StreamRedactor(options.redact);
  const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return { kind: 'replying', chunks: streamed ? streamedReply(response, redactor) : oneReply(response, redactor) };
}
