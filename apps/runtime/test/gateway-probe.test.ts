import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeGatewayReady } from '../src/gateway-probe.ts';

// A loopback server standing in for the gateway's /readyz answers (the real gateway is probed in
// openclaw-runtime.test.ts); here only the probe's reading of answers is under test.
let server: Server;
let port: number;
let answer: { status: number; body: string } = { status: 200, body: '{"ready":true}' };
const seenAuth: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('probeGatewayReady', () => {
  it('is true only for 200 with ready:true, and sends the token as a bearer', async () => {
    answer = { status: 200, body: '{"ready":true,"checks":{}}' };
    expect(await probeGatewayReady(port, 'tok', AbortSignal.timeout(5_000))).toBe(true);
    expect(seenAuth.at(-1)).toBe('Bearer tok');
    answer = { status: 200, body: '{"ready":false}' };
    expect(await probeGatewayReady(port, 'tok', AbortSignal.timeout(5_000))).toBe(false);
    answer = { status: 503, body: '{"ready":true}' };
    expect(await probeGatewayReady(port, 'tok', AbortSignal.timeout(5_000))).toBe(false);
    answer = { status: 200, body: 'not json' };
    expect(await probeGatewayReady(port, 'tok', AbortSignal.timeout(5_000))).toBe(false);
  });

  it('refuses an answer larger than 64 KiB', async () => {
    answer = { status: 200, body: JSON.stringify({ ready: true, pad: 'x'.repeat(128 * 1024) }) };
    expect(await probeGatewayReady(port, 'tok', AbortSignal.timeout(5_000))).toBe(false);
  });

  it('is false for a port nobody listens on, and for a port out of range', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await probeGatewayReady(free, 'tok', AbortSignal.timeout(5_000))).toBe(false);
    expect(await probeGatewayReady(0, 'tok', AbortSignal.timeout(5_000))).toBe(false);
  });
});
