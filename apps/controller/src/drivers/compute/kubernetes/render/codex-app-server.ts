import { RUNTIME_NETWORK_VARIABLES } from '@occ/host-io/network-env';

/**
 * A Codex revision's pod runs two containers (docs/compute-kubernetes.md, "A Codex Agent's pod"):
 * `runtime` runs OpenClaw's gateway (runtime role `gateway`) and never holds the codex_pat;
 * `codex-app-server` runs the dedicated `codex app-server` (role `app-server`) with the codex_pat,
 * in its own file system (its own emptyDir) and PID namespace (`shareProcessNamespace` stays off),
 * so nothing the agent runs in the gateway's container can read it. They share the pod's network:
 * the app-server's status and WebSocket listen on the pod's IP on ports no NetworkPolicy admits
 * from outside the pod; the credential gates the WebSocket in any case.
 */
export const CODEX_APP_SERVER_CONTAINER = 'codex-app-server';
export const CODEX_POD_PORTS = { status: 8182, appServer: 8183 } as const;

/** Whose the revision Secret's variables are: the Codex settings and the codex_pat go to the app-server only. */
const CODEX_ONLY = 'OCC_RUNTIME_CODEX_';
const APP_SERVER_TOKENS = new Set(['OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_TRANSPORT_SECRET']);
const NETWORK = new Set(RUNTIME_NETWORK_VARIABLES.map((name) => name.toUpperCase()));

export function gatewayVariableNames(names: readonly string[]): string[] {
  return names.filter((name) => !name.startsWith(CODEX_ONLY));
}

/** The app-server's: its status token, the transport secret, the Codex settings and the codex_pat, the network settings; no Configuration Secret, no gateway token. */
export function appServerVariableNames(names: readonly string[]): string[] {
  return names.filter((name) => name.startsWith(CODEX_ONLY) || APP_SERVER_TOKENS.has(name) || NETWORK.has(name.toUpperCase()));
}

type PlainVariable = { name: string; value: string } | { name: string; valueFrom: { fieldRef: { fieldPath: string } } };
const podIp = (name: string): PlainVariable => ({ name, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });

/** The gateway container's role and where it reads its peer's status. */
export function codexGatewayVariables(): PlainVariable[] {
  return [
    { name: 'OCC_RUNTIME_CODEX_ROLE', value: 'gateway' },
    podIp('OCC_RUNTIME_CODEX_PEER_ADDRESS'),
    { name: 'OCC_RUNTIME_CODEX_PEER_STATUS_PORT', value: String(CODEX_POD_PORTS.status) },
  ];
}

/** The app-server container's role and where it listens (the pod's IP: reachable by its gateway container). */
export function codexAppServerVariables(): PlainVariable[] {
  return [
    { name: 'OCC_RUNTIME_CODEX_ROLE', value: 'app-server' },
    podIp('OCC_RUNTIME_STATUS_ADDRESS'),
    { name: 'OCC_RUNTIME_STATUS_PORT', value: String(CODEX_POD_PORTS.status) },
    podIp('OCC_RUNTIME_CODEX_APP_SERVER_ADDRESS'),
    { name: 'OCC_RUNTIME_CODEX_APP_SERVER_PORT', value: String(CODEX_POD_PORTS.appServer) },
  ];
}
