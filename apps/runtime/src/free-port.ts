import { createServer } from 'node:net';

/**
 * A loopback port the OS just handed out (bind to 0, read, close). `openclaw gateway run`
 * refuses `--port 0`, so the port is picked immediately before the gateway starts; another
 * process could take it in between, in which case the gateway exits and the driver restarts
 * the runtime with a fresh port.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
