// The runtime's side of a network-isolated sandbox (the local driver's `sandbox`: a network
// namespace with loopback only). Unix sockets in a directory both sides see carry TCP in and out:
// - inbound: `in-<port>.sock` → 127.0.0.1:<port> here (the status server and the gateway), so the
//   driver can offer them on the host's loopback;
// - outbound: 127.0.0.1:<port> here → `out-<port>.sock`, served by the driver (its egress proxy,
//   or a host loopback port the operator shares).
// Nothing else crosses. Contract: README.md, "Contract with the compute driver".
import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { listenOn, pipeSockets } from '@occ/host-io/socket-pipe';
import { socketDirectory } from '@occ/host-io/socket-directory';

export interface SandboxBridge {
  close(): Promise<void>;
}

/** Comma-separated port numbers; null when the list is malformed. */
function parsePorts(value: string | undefined): number[] | null {
  if (value === undefined || value === '') return [];
  const ports = value.split(',').map((entry) => Number(entry));
  return ports.every((port) => Number.isInteger(port) && port >= 1 && port <= 65535) ? ports : null;
}

/**
 * Starts the bridge when OCC_RUNTIME_BRIDGE_DIR is set (else null): inbound for
 * OCC_RUNTIME_BRIDGE_INBOUND's ports, outbound for OCC_RUNTIME_BRIDGE_OUTBOUND's.
 */
export async function startSandboxBridge(env: NodeJS.ProcessEnv): Promise<SandboxBridge | null> {
  const dir = env.OCC_RUNTIME_BRIDGE_DIR;
  if (!dir) return null;
  const inbound = parsePorts(env.OCC_RUNTIME_BRIDGE_INBOUND);
  const outbound = parsePorts(env.OCC_RUNTIME_BRIDGE_OUTBOUND);
  if (inbound === null || outbound === null) throw new Error('OCC_RUNTIME_BRIDGE_INBOUND and OCC_RUNTIME_BRIDGE_OUTBOUND must list port numbers.');
  const at = socketDirectory(dir);
  const servers: Server[] = [];
  for (const port of inbound) {
    const path = join(at.path, `in-${port}.sock`);
    rmSync(path, { force: true });
    const server = createServer((client) => pipeSockets(client, connect(port, '127.0.0.1')));
    await listenOn(server, path);
    chmodSync(path, 0o600);
    servers.push(server);
  }
  for (const port of outbound) {
    const server = createServer((client) => pipeSockets(client, connect(join(at.path, `out-${port}.sock`))));
    await listenOn(server, { port, host: '127.0.0.1' });
    servers.push(server);
  }
  return {
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      at.close();
    },
  };
}
