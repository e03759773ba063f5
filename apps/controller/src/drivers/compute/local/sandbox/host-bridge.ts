import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { listenOn, pipeSockets } from '@occ/host-io/socket-pipe';
import { socketDirectory } from '@occ/host-io/socket-directory';
import { startEgressGate, type UpstreamProxy } from './egress-gate.ts';

/**
 * The host's side of a network-isolated runtime (the runtime's side: apps/runtime/src/sandbox-bridge.ts).
 * The status server and the gateway listen inside the sandbox on the same port numbers this side
 * holds on the host's loopback, so every reader (the driver, a user talking to the gateway) uses
 * them unchanged. Out of the sandbox go only the egress gate and the host loopback ports the
 * operator shares (a local model server, a loopback npm registry).
 */
export interface HostBridge {
  /** Variables for the runtime: its ports, the bridge, and the egress gate as its proxy. */
  env: Record<string, string>;
  /** The proxy URL the runtime's HTTP(S) traffic must use. */
  proxy: string;
  close(): Promise<void>;
}

export interface HostBridgeInput {
  /** A directory of the revision that the sandbox shows at the same path. */
  dir: string;
  /** Host loopback ports the runtime may reach (shown inside at the same number). */
  sharedLoopbackPorts: readonly number[];
  /** The operator's proxy the gate reaches allowed destinations through (upstreamProxyOf); null: directly. */
  upstreamProxy?: UpstreamProxy | null;
  /** One line per egress decision or refused bridge connection (the revision's log). */
  record: (line: string) => void;
}

/**
 * A bridge directory of its own for one start of a revision's runtime, after removing those of
 * earlier starts (none of them runs: a revision is started only when nothing of it runs). One per
 * start, because the previous start's bridge is closed (and its directory removed) only once its
 * process has exited, possibly after the next start opened its own.
 */
export function freshBridgeDirectory(revisionDir: string): string {
  for (const entry of readdirSync(revisionDir)) if (/^bridge(-[0-9a-f]+)?$/.test(entry)) rmSync(join(revisionDir, entry), { recursive: true, force: true });
  return join(revisionDir, `bridge-${randomBytes(6).toString('hex')}`);
}

/** The proxy port inside the sandbox: any free number there (its loopback is its own). */
const EGRESS_PORT_START = 3128;

/**
 * Connects to the runtime's `in-<port>.sock`: only a socket, never a link the sandbox left there
 * (which could point this root-owned process at another socket of the host).
 */
function connectInbound(dir: string, port: number, record: (line: string) => void): Socket | null {
  // `dir` is this process's descriptor of the bridge directory: a link put in its place changes nothing.
  const path = join(dir, `in-${port}.sock`);
  try {
    if (!lstatSync(path).isSocket()) {
      record(`bridge refused: ${`in-${port}.sock`} is not a socket`);
      return null;
    }
  } catch {
    return null;
  }
  return connect(path);
}

export async function openHostBridge(input: HostBridgeInput): Promise<HostBridge> {
  mkdirSync(input.dir, { mode: 0o700 });
  const dir = socketDirectory(input.dir);
  const servers: Server[] = [];
  const close = async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    dir.close();
    rmSync(input.dir, { recursive: true, force: true });
  };
  try {
    const inbound: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const server = createServer((client) => {
        const runtime = connectInbound(dir.path, (server.address() as AddressInfo).port, input.record);
        if (runtime === null) client.destroy();
        else pipeSockets(client, runtime);
      });
      await listenOn(server, { port: 0, host: '127.0.0.1' });
      servers.push(server);
      inbound.push((server.address() as AddressInfo).port);
    }
    const taken = new Set([...inbound, ...input.sharedLoopbackPorts]);
    let egressPort = EGRESS_PORT_START;
    while (taken.has(egressPort)) egressPort += 1;
    const outSocket = (port: number) => join(dir.path, `out-${port}.sock`);
    servers.push(await startEgressGate(outSocket(egressPort), input.record, { upstream: input.upstreamProxy ?? null }));
    for (const port of input.sharedLoopbackPorts) {
      const server = createServer((runtime) => pipeSockets(runtime, connect(port, '127.0.0.1')));
      await listenOn(server, outSocket(port));
      servers.push(server);
    }
    // The runtime's uid connects to them; the directory (0700, the runtime's) keeps everyone else out.
    for (const port of [egressPort, ...input.sharedLoopbackPorts]) chmodSync(outSocket(port), 0o666);
    const [statusPort, gatewayPort] = inbound as [number, number];
    const proxy = `http://127.0.0.1:${egressPort}`;
    return {
      proxy,
      env: {
        OCC_RUNTIME_STATUS_PORT: String(statusPort),
        OCC_RUNTIME_GATEWAY_PORT: String(gatewayPort),
        OCC_RUNTIME_BRIDGE_DIR: input.dir,
        OCC_RUNTIME_BRIDGE_INBOUND: `${statusPort},${gatewayPort}`,
        OCC_RUNTIME_BRIDGE_OUTBOUND: [egressPort, ...input.sharedLoopbackPorts].join(','),
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
