import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { logEvent } from '../log.ts';
import { bearerMatches } from '../status-server.ts';
import { gateClientMessage, type GateContext } from './app-server-gate-policy.ts';

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** The gateway holds one or two connections; more is someone else holding the app-server's runtime busy. */
const MAX_CONNECTIONS = 8;
/** Messages held for an app-server connection that is not open yet. */
const MAX_WAITING = 256;
const UPSTREAM_HANDSHAKE_MS = 10_000;
/** Dropped messages logged per connection (the rest only counted when it closes). */
const DROPS_LOGGED = 10;
/** JSON-RPC's "invalid request": the gate's answer to a refused one. */
const REFUSED_CODE = -32600;

/** The gateway's way in to its dedicated app-server: only what app-server-gate-policy.ts lets through. */
export interface AppServerGate {
  /** `ws://<address>:<port>` as the gateway reaches it (loopback when the gate listens on every address). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens where the gateway expects its app-server and relays each connection to the app-server,
 * which listens on its own loopback for the runtime's inner credential only (never the gateway's).
 * A connection without the gateway's bearer is refused (HTTP 401), as the app-server itself would;
 * each message from the gateway passes through the policy, each message to it passes unchanged.
 * A refused request is answered with a JSON-RPC error and logged (`codex.gate.refused`, the method
 * and the reason, never the parameters).
 */
export async function startAppServerGate(options: {
  listen: { host: string; port: number };
  credential: string;
  upstream: { url: string; credential: string };
  context: GateContext;
}): Promise<AppServerGate> {
  const server = new WebSocketServer({
    host: options.listen.host,
    port: options.listen.port,
    maxPayload: MAX_MESSAGE_BYTES,
    verifyClient: (info, done) => {
      if (!bearerMatches(info.req.headers.authorization, options.credential)) return done(false, 401);
      return server.clients.size >= MAX_CONNECTIONS ? done(false, 503) : done(true);
    },
  });
  server.on('connection', (client) => relay(client, options.upstream, options.context));
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.on('error', () => {});
  const { port } = server.address() as AddressInfo;
  const host = options.listen.host === '0.0.0.0' ? '127.0.0.1' : options.listen.host;
  return {
    url: `ws://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

function relay(client: WebSocket, upstream: { url: string; credential: string }, context: GateContext): void {
  const app = new WebSocket(upstream.url, {
    headers: { Authorization: `Bearer ${upstream.credential}` },
    maxPayload: MAX_MESSAGE_BYTES,
    followRedirects: false,
    handshakeTimeout: UPSTREAM_HANDSHAKE_MS,
  });
  // What the gateway sends before the app-server's side is open waits, in order.
  const waiting: string[] = [];
  let dropped = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    client.terminate();
    app.terminate();
    if (dropped > DROPS_LOGGED) logEvent('codex.gate.dropped', { reason: 'more dropped messages on one connection', count: dropped - DROPS_LOGGED });
  };
  client.on('error', end).on('close', end);
  app.on('error', end).on('close', end);
  app.on('open', () => {
    for (const text of waiting.splice(0)) app.send(text);
  });
  app.on('message', (data, isBinary) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
  });
  client.on('message', (data, isBinary) => {
    if (isBinary) return end();
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return end();
    }
    const verdict = gateClientMessage(message, context);
    if ('forward' in verdict) {
      const text = JSON.stringify(verdict.forward);
      if (app.readyState === WebSocket.OPEN) app.send(text);
      else if (waiting.length < MAX_WAITING) waiting.push(text);
      else end();
      return;
    }
    if ('refuse' in verdict) {
      const { id, method, reason } = verdict.refuse;
      logEvent('codex.gate.refused', { method: method.slice(0, 100), reason: reason.slice(0, 300) });
      // Codex's own framing: JSON-RPC without the `jsonrpc` member.
      client.send(JSON.stringify({ id, error: { code: REFUSED_CODE, message: `OCC does not let the gateway ask the app-server this: ${method} (${reason}).` } }));
      return;
    }
    dropped += 1;
    if (dropped <= DROPS_LOGGED) logEvent('codex.gate.dropped', { reason: verdict.drop.slice(0, 300) });
  });
}
