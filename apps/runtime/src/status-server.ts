import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartupStatus } from '@occ/contracts';

/** The runtime's private startup-status endpoint: `GET /startup-status` on loopback with the bearer token. */
export interface StatusServer {
  port: number;
  close(): Promise<void>;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time: both sides are hashed to the same length before comparing. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

/** Serves whatever `current()` returns at the time of each request; everything else is 404/405/401. */
export async function startStatusServer(token: string, current: () => StartupStatus): Promise<StatusServer> {
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/startup-status') return send(404, { error: 'NOT_FOUND' });
    if (request.method !== 'GET') return send(405, { error: 'METHOD_NOT_ALLOWED' }, { allow: 'GET' });
    if (!bearerMatches(request.headers.authorization, token)) return send(401, { error: 'UNAUTHENTICATED' }, { 'www-authenticate': 'Bearer' });
    send(200, current());
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
