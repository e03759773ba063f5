import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartupStatus } from '@occ/contracts';

/**
 * The runtime's private startup-status endpoint: `GET /startup-status` with the token, on
 * loopback unless the driver names an address (a pod's IP). The token comes as a bearer, or as
 * X-OCC-Status-Token through the Kubernetes API server's pod proxy (which strips Authorization).
 */
export interface StatusServer {
  port: number;
  close(): Promise<void>;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time: both sides are hashed to the same length before comparing. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  return tokenMatches(/^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '', token);
}

function tokenMatches(presented: string, token: string): boolean {
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

const STATUS_TOKEN_HEADER = 'x-occ-status-token';

function presentsToken(headers: IncomingHttpHeaders, token: string): boolean {
  const header = headers[STATUS_TOKEN_HEADER];
  if (typeof header === 'string' && header !== '') return tokenMatches(header, token);
  return bearerMatches(headers.authorization, token);
}

/** The header naming the served status's version (a digest of its JSON): a long-poll passes it back as `seen`. */
export const STATUS_VERSION_HEADER = 'x-occ-status-version';
/** The longest a long-poll is held (`waitMs` above it is cut to this). */
const MAX_STATUS_WAIT_MS = 25_000;
/** How often a held long-poll compares the status with the version its caller saw. */
const CHANGE_CHECK_MS = 25;
/** At most this many long-polls are held at once; beyond it a long-poll is answered at once, like a read. */
const MAX_HELD = 8;

const versionOf = (body: string) => createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 32);

/**
 * `?seen=<version>&waitMs=<n>`: a long-poll. Answered at once when the status is no longer the
 * version the caller saw (or none was named); else held until it changes, `waitMs` (at most
 * MAX_STATUS_WAIT_MS) passes or the caller goes away — so the driver learns of readiness within
 * milliseconds instead of at its next poll (docs/deployments.md, "How a deploy learns of readiness").
 */
function longPoll(url: string): { seen: string; waitMs: number } | null {
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  const seen = query.get('seen');
  const waitMs = Number(query.get('waitMs'));
  if (seen === null || !/^[0-9a-f]{32}$/.test(seen) || !Number.isInteger(waitMs) || waitMs <= 0) return null;
  return { seen, waitMs: Math.min(waitMs, MAX_STATUS_WAIT_MS) };
}

/** `GET /runtime-assets`: what a Codex app-server runtime hands its gateway's runtime (skills-bundle.ts); null: nothing (404). */
export type RuntimeAssets = () => Buffer | null;

/** What the server serves besides the status, each only when given. */
export interface StatusHandlers {
  assets?: RuntimeAssets;
  /**
   * `POST /proceed` (204, idempotent): the driver's go to a runtime holding in `prepared`
   * (OCC_RUNTIME_HOLD_BEFORE_GATEWAY) once the Agent's earlier gateway has stopped.
   */
  proceed?: () => void;
}

/** Serves whatever `current()` returns at the time of each request (and the handlers given); everything else is 404/405/401. */
export async function startStatusServer(
  token: string,
  current: () => StartupStatus,
  listen: { host: string; port: number } = { host: '127.0.0.1', port: 0 },
  handlers: StatusHandlers = {},
): Promise<StatusServer> {
  const { assets, proceed } = handlers;
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra });
      response.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/startup-status' && !(path === '/runtime-assets' && assets) && !(path === '/proceed' && proceed)) return send(404, { error: 'NOT_FOUND' });
    const method = path === '/proceed' ? 'POST' : 'GET';
    if (request.method !== method) return send(405, { error: 'METHOD_NOT_ALLOWED' }, { allow: method });
    if (!presentsToken(request.headers, token)) return send(401, { error: 'UNAUTHENTICATED' }, { 'www-authenticate': 'Bearer' });
    if (path === '/proceed') {
      proceed!();
      response.writeHead(204, { 'cache-control': 'no-store' });
      return response.end();
    }
    if (path === '/runtime-assets') {
      const bundle = assets!();
      return bundle === null ? send(404, { error: 'NOT_FOUND' }) : send(200, bundle);
    }
    const answer = () => {
      const body = JSON.stringify(current());
      return { body, version: versionOf(body) };
    };
    const poll = longPoll(request.url ?? '');
    let now = answer();
    if (poll === null || now.version !== poll.seen || held.size >= MAX_HELD) return send(200, Buffer.from(now.body), { [STATUS_VERSION_HEADER]: now.version });
    const deadline = Date.now() + poll.waitMs;
    const check = setInterval(() => {
      now = answer();
      if (now.version === poll.seen && Date.now() < deadline) return;
      clearInterval(check);
      send(200, Buffer.from(now.body), { [STATUS_VERSION_HEADER]: now.version });
    }, CHANGE_CHECK_MS);
    held.add(check);
    // Answered, or the caller went away: either way nothing is held any more.
    response.once('close', () => {
      clearInterval(check);
      held.delete(check);
    });
  });
  const held = new Set<ReturnType<typeof setInterval>>();
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const check of held) clearInterval(check);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
