import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP front of the fixture registry that counts what npm asked it for. */
export interface CountingRegistry {
  url: string;
  /** The tarball downloads (`GET …/-/<file>.tgz`) of `packageName` so far. */
  tarballGets(packageName: string): number;
  close(): Promise<void>;
}

/**
 * Forwards every request to `target` (the fixture verdaccio) with its own Host header, so the
 * tarball addresses verdaccio writes into package metadata point back here and each download is
 * seen (counted by path).
 */
export async function startCountingRegistry(target: string): Promise<CountingRegistry> {
  const upstream = new URL(target);
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    const forwarded = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    tarballGets: (packageName) => paths.filter((line) => line.startsWith(`GET /${packageName}/-/`) && line.endsWith('.tgz')).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
