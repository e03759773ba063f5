import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A loopback port that forwards each connection to the app-server in another container. */
export interface PeerRelay {
  port: number;
  close(): Promise<void>;
}

/**
 * OpenClaw's Codex harness treats an app-server on a non-loopback address as a *remote* one (other
 * session and workspace handling than a local app-server's). On Docker the app-server is the
 * Agent's other container, on the Agent's own network: the gateway runtime relays a port on its
 * loopback to it, so OpenClaw talks to a loopback app-server as it does on `local` and in a pod.
 * The credential still gates every connection at the app-server itself.
 */
export async function startPeerRelay(target: { host: string; port: number }): Promise<PeerRelay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
