import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrometheusMetrics } from './index.ts';

export interface ScrapeListener {
  /** Where it listens, as bound (`127.0.0.1:9464`; an IPv6 host in brackets): port 0 became a real one. */
  readonly address: string;
  /** Stops listening and ends open connections (a scraper's kept-alive one too). */
  close(): Promise<void>;
}

const PATH = '/metrics';

function answer(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

/**
 * The metrics listener: a plain HTTP server apart from the API, answering `GET /metrics` (any
 * query ignored) with the exposition and everything else with 404. It authenticates nobody, like
 * most exporters, and serves no secret: bind it to loopback or a private network
 * (docs/observability.md). Nothing on it is logged per request.
 */
export async function listenForScrapes(metrics: PrometheusMetrics, host: string, port: number): Promise<ScrapeListener> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return answer(res, 404, 'text/plain; charset=utf-8', 'Not found: the metrics are at GET /metrics.\n');
    metrics.exposition().then(
      (text) => answer(res, 200, metrics.contentType, req.method === 'HEAD' ? '' : text),
      () => answer(res, 500, 'text/plain; charset=utf-8', 'The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
