import type { Server, Socket } from 'node:net';

/** Joins two sockets both ways; either ending or failing ends both (the sandbox bridge's relays). */
export function pipeSockets(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.once('error', end).once('close', end);
  b.once('error', end).once('close', end);
}

/** `server.listen` on a Unix socket path or a TCP address, as a promise. */
export function listenOn(server: Server, target: string | { port: number; host: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof target === 'string') server.listen(target, () => resolve());
    else server.listen(target.port, target.host, () => resolve());
  });
}
