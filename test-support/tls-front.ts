// An HTTPS front for a loopback HTTP server (the fixture npm registry): TLS with a certificate
// the test chooses (throwaway-tls.ts), each request forwarded as it came with
// `X-Forwarded-Proto: https`, so verdaccio writes https tarball URLs on this front's host.
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface TlsFront {
  /** https://127.0.0.1:<port>/ */
  url: string;
  /** Requests that completed a TLS handshake and reached the backend. */
  requests(): number;
  /** TLS handshakes the client broke off (e.g. it did not trust the certificate). */
  refusedHandshakes(): number;
  close(): Promise<void>;
}

export async function startTlsFront(backendUrl: string, tls: { cert: string; key: string }): Promise<TlsFront> {
  const backend = new URL(backendUrl);
  let requests = 0;
  let refused = 0;
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    requests += 1;
    const upstream = httpRequest(
      { host: backend.hostname, port: backend.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('tlsClientError', () => {
    refused += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests: () => requests,
    refusedHandshakes: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
