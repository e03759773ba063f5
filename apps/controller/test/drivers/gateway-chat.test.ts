import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayReply, GatewayReplyChunk } from '../../src/core/ports/compute-driver.ts';
import { relayToGateway, StreamRedactor } from '../../src/drivers/compute/runtime-contract/gateway-chat.ts';

/**
 * The relay to an OpenClaw gateway's chat endpoint that the local and docker ComputeDrivers share:
 * what it sends (the token in Authorization only, the session as `user`), how it reads OpenClaw's
 * stream, and the redaction of the reply across pieces.
 */
const TOKEN = 'gw-token-0123456789abcdefghijklmnopqrstuvwxyz';

interface Seen {
  headers: IncomingMessage['headers'];
  body: any;
}
let server: Server;
let port: number;
const seen: Seen[] = [];
/** What the fake gateway answers next. */
let answer: (res: ServerResponse) => void = () => {};

const sse = (res: ServerResponse, items: unknown[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const item of items) res.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`);
  res.end();
};
const delta = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const finish = (reason: string) => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(raw || '{}') });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

const relay = (redact: string[] = [TOKEN]) => relayToGateway({ port, token: TOKEN }, { text: 'hello', session: 'occ:prn_x:conv1' }, { redact, signal: AbortSignal.timeout(5_000) });

async function chunksOf(reply: GatewayReply): Promise<GatewayReplyChunk[]> {
  if (reply.kind !== 'replying') throw new Error(`not replying: ${JSON.stringify(reply)}`);
  const out: GatewayReplyChunk[] = [];
  for await (const chunk of reply.chunks) out.push(chunk);
  return out;
}
const textOf = (chunks: GatewayReplyChunk[]) => chunks.flatMap((c) => (c.kind === 'text' ? [c.text] : [])).join('');

describe("the relay to a gateway's chat endpoint", () => {
  it('sends one user message, streamed, to the default agent, with the session as `user` and the token in Authorization only', async () => {
    answer = (res) => sse(res, [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }, delta('Hi '), delta('there.'), finish('stop'), '[DONE]']);
    const chunks = await chunksOf(await relay());
    expect(chunks.at(-1)).toEqual({ kind: 'done', finishReason: 'stop' });
    expect(textOf(chunks)).toBe('Hi there.');
    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.body).toEqual({ model: 'openclaw/default', stream: true, user: 'occ:prn_x:conv1', messages: [{ role: 'user', content: 'hello' }] });
  });

  it('redacts the token and delivered values from the reply, also when a value is cut across pieces', async () => {
    const secret = 'sk-delivered-value-42';
    answer = (res) =>
      sse(res, [
        delta('token: '),
        delta(TOKEN.slice(0, 7)),
        delta(TOKEN.slice(7, 30)),
        delta(`${TOKEN.slice(30)} key `),
        delta(secret.slice(0, 3)),
        delta(`${secret.slice(3)}.`),
        finish('stop'),
        '[DONE]',
      ]);
    const text = textOf(await chunksOf(await relay([TOKEN, secret])));
    expect(text).toBe('token: [redacted] key [redacted].');
  });

  it("a gateway error in the stream ends the reply as failed, in fixed words (never the gateway's message)", async () => {
    answer = (res) => sse(res, [delta('partial '), { error: { message: `provider said ${TOKEN}`, type: 'server_error' } }, '[DONE]']);
    const chunks = await chunksOf(await relay());
    expect(chunks).toEqual([
      { kind: 'text', text: 'partial ' },
      { kind: 'failed', reason: "The Agent's turn failed (server_error); its runtime log may say why." },
    ]);
  });

  it('a stream that ends without [DONE] is released but not done (the caller says it was cut)', async () => {
    answer = (res) => sse(res, [delta('half a')]);
    expect(await chunksOf(await relay())).toEqual([{ kind: 'text', text: 'half a' }]);
  });

  it('a one-JSON answer (no stream) is read as one piece', async () => {
    answer = (res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: `whole ${TOKEN}` }, finish_reason: 'stop' }] }));
    expect(await chunksOf(await relay())).toEqual([
      { kind: 'text', text: 'whole [redacted]' },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it('refusals and silence are `unavailable`, in words', async () => {
    answer = (res) => res.writeHead(404).end();
    expect(await relay()).toEqual({ kind: 'unavailable', reason: "The Agent's gateway does not serve its chat endpoint (gateway.http.endpoints.chatCompletions.enabled)." });
    answer = (res) => res.writeHead(401).end();
    expect(await relay()).toEqual({ kind: 'unavailable', reason: "The Agent's gateway refused OCC's credential for this revision." });
    answer = (res) => res.writeHead(500).end();
    expect(await relay()).toEqual({ kind: 'unavailable', reason: "The Agent's gateway answered HTTP 500 to the message." });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await relayToGateway({ port: deadPort, token: TOKEN }, { text: 'x', session: 's' }, { redact: [], signal: AbortSignal.timeout(5_000) })).toEqual({
      kind: 'unavailable',
      reason: "The Agent's gateway did not answer.",
    });
  });
});

describe('StreamRedactor', () => {
  it('finds a value split at every position, and never holds back more than the longest value', () => {
    const value = 'abcdefghij';
    for (let cut = 1; cut < value.length; cut++) {
      const r = new StreamRedactor([value]);
      const out = r.push(`x ${value.slice(0, cut)}`) + r.push(`${value.slice(cut)} y`) + r.flush();
      expect(out).toBe('x [redacted] y');
    }
    const r = new StreamRedactor([value]);
    expect(r.push('0123456789012345')).toBe('0123456');
    expect(r.flush()).toBe('789012345');
  });

  it('ignores values too short to redact safely, and never splits a surrogate pair', () => {
    expect(new StreamRedactor(['ab']).push('abab')).toBe('abab');
    const r = new StreamRedactor(['12345']);
    const out = [r.push('a😀'), r.push('😀b'), r.flush()];
    expect(out.join('')).toBe('a😀😀b');
    for (const piece of out) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });
});
