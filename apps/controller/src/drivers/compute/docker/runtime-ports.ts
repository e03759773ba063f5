/**
 * How OCC reaches a runtime that lives on its Agent's own network (agent-network.ts): fixed
 * ports inside the container, each published on the host's 127.0.0.1 only (a port the engine
 * picks, read back from `docker inspect`), so the controller's status reads and gateway probes
 * and the host's users keep using loopback, and no other machine or Agent sees them.
 *
 * - status: the runtime's startup status server listens on every address of the container.
 * - gateway: OpenClaw's gateway stays on the container's loopback: a non-loopback bind would need
 *   Control UI origins the revision does not set, and OpenClaw trusts loopback clients, as users
 *   on the host were before. The relay below forwards the published port to it.
 */
export const RUNTIME_PORTS = { status: 18790, gateway: 18789, relay: 18788 } as const;

/** The relay's listen and target ports, read (and removed from the environment) by the relay itself. */
const RELAY_VARIABLE = 'OCC_DOCKER_GATEWAY_RELAY';

export function runtimePortEnvironment(): Record<string, string> {
  return {
    OCC_RUNTIME_STATUS_ADDRESS: '0.0.0.0',
    OCC_RUNTIME_STATUS_PORT: String(RUNTIME_PORTS.status),
    // No OCC_RUNTIME_GATEWAY_ADDRESS: the gateway binds loopback, on a fixed port the relay knows.
    OCC_RUNTIME_GATEWAY_PORT: String(RUNTIME_PORTS.gateway),
    [RELAY_VARIABLE]: `${RUNTIME_PORTS.relay}:${RUNTIME_PORTS.gateway}`,
  };
}

/** `ExposedPorts` and `PortBindings` for `docker create`: 127.0.0.1 only, the host port the engine's choice. */
export function publishedPorts() {
  const ports = [RUNTIME_PORTS.status, RUNTIME_PORTS.relay].map((port) => `${port}/tcp`);
  return {
    ExposedPorts: Object.fromEntries(ports.map((port) => [port, {}])),
    PortBindings: Object.fromEntries(ports.map((port) => [port, [{ HostIp: '127.0.0.1', HostPort: '' }]])),
  };
}

/**
 * A TCP relay from the container's network to the gateway on its loopback, preloaded into the
 * runtime's own process (`node --import`), so the runtime stays the container's one process and
 * the relay lives and restarts with it. The variable is removed at once: a child Node process
 * (which may load the same preload) finds none and relays nothing.
 */
const RELAY_SOURCE = `import { connect, createServer } from 'node:net';
const spec = process.env.${RELAY_VARIABLE} ?? '';
delete process.env.${RELAY_VARIABLE};
const [listen, target] = spec.split(':').map(Number);
if (listen > 0 && target > 0) {
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const close = () => { client.destroy(); upstream.destroy(); };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  server.on('error', (error) => process.stderr.write(JSON.stringify({ source: 'occ-docker', event: 'gateway_relay.failed', code: error.code }) + '\\n'));
  server.listen(listen, '0.0.0.0');
  server.unref();
}
`;

/**
 * The image's entrypoint (`node [flags] <runtime>`) with the relay preloaded; null when it does
 * not start with Node (not an OCC runtime image).
 */
export function withGatewayRelay(entrypoint: readonly string[] | null | undefined): string[] | null {
  const [node, ...rest] = entrypoint ?? [];
  if (!node || !/(^|\/)node$/.test(node)) return null;
  return [node, '--import', `data:text/javascript,${encodeURIComponent(RELAY_SOURCE)}`, ...rest];
}

/**
 * The host port (on 127.0.0.1) for a port the runtime announced inside its container; null when
 * it is not one OCC published (the controller then connects nowhere: never to another port of the
 * host a log line could name).
 */
export function hostPortFor(published: ReadonlyMap<number, number>, announced: number): number | null {
  if (announced === RUNTIME_PORTS.status) return published.get(RUNTIME_PORTS.status) ?? null;
  if (announced === RUNTIME_PORTS.gateway) return published.get(RUNTIME_PORTS.relay) ?? null;
  return null;
}
