import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { serviceUnavailable, StatusError } from './status.ts';

// Hop-by-hop headers never cross a proxy; Authorization is the credential the API server itself
// authenticated, which the real server strips before it reaches the pod.
const DROPPED = new Set(['authorization', 'host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * pods/proxy: forwards the request (method, path, query, body, headers but Authorization) to the
 * pod's IP and port over plain HTTP and streams the answer back. A refused connection is a 503
 * Status, as the real server answers ("error trying to reach service").
 */
export function forwardToPod(request: IncomingMessage, response: ServerResponse, address: string, port: number, path: string, query: URLSearchParams): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
  headers.host = `${address}:${port}`;
  const search = query.toString();
  return new Promise<void>((resolve, reject) => {
    const upstream = httpRequest({ host: address, port, method: request.method, path: `${path}${search ? `?${search}` : ''}`, headers }, (answer) => {
      const forwarded: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !DROPPED.has(name)) forwarded[name] = value;
      response.writeHead(answer.statusCode ?? 502, forwarded);
      answer.pipe(response);
      answer.on('end', () => resolve());
      answer.on('error', reject);
    });
    upstream.setTimeout(30_000, () => upstream.destroy(new Error('timed out')));
    upstream.on('error', (error) => {
      if (response.headersSent) return reject(error);
      reject(serviceUnavailable(`error trying to reach service: dial tcp ${address}:${port}: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    });
    request.pipe(upstream);
  }).catch((error) => {
    if (error instanceof StatusError) throw error;
    response.destroy();
  });
}
