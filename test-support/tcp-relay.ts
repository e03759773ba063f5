import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  /** Stops forwarding in both directions without closing anything: a silent stall. */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

/** A TCP relay in front of a server, which a test can make stall silently. */
export function startTcpRelay(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = createConnection({ port: targetPort, host: targetHost });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => to.write(chunk));
      // While stalled, sockets are not read: bytes wait in kernel buffers, nothing closes.
      if (stalled) from.pause();
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as { port: number }).port,
        stall() {
          stalled = true;
          for (const s of sockets) s.pause();
        },
        resume() {
          stalled = false;
          for (const s of sockets) s.resume();
        },
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
