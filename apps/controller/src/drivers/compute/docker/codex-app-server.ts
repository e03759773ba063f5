/**
 * A Codex revision on Docker is two containers on the Agent's own network (docs/compute-docker.md,
 * "A Codex Agent's two containers"): the runtime container runs OpenClaw's gateway (runtime role
 * `gateway`) and never holds the codex_pat; the app-server container (`<runtime container>-codex`,
 * role `app-server`) runs the dedicated `codex app-server` with the codex_pat, in its own PID
 * namespace and file system, so nothing the agent runs in the gateway's container can read it.
 * Not `--network container:…`: a container joined to another's network loses it when that one
 * restarts, and a restarted app-server must cost only an OpenClaw restart ([G-9]).
 */
export const CODEX_APP_SERVER = {
  /** Its name on the Agent's network (one app-server runs per Agent: Recreate stops the old revision's first). */
  alias: 'codex-app-server',
  /** Its runtime's status server (the gateway container reads the peer status here) and the app-server itself; not published on the host. */
  statusPort: 18791,
  appServerPort: 18792,
} as const;

export function appServerContainerName(runtimeContainer: string): string {
  return `${runtimeContainer}-codex`;
}

/** The app-server container's runtime variables: its role, and both servers on every address of its container. */
export function codexAppServerEnvironment(): Record<string, string> {
  return {
    OCC_RUNTIME_CODEX_ROLE: 'app-server',
    OCC_RUNTIME_STATUS_ADDRESS: '0.0.0.0',
    OCC_RUNTIME_STATUS_PORT: String(CODEX_APP_SERVER.statusPort),
    OCC_RUNTIME_CODEX_APP_SERVER_ADDRESS: '0.0.0.0',
    OCC_RUNTIME_CODEX_APP_SERVER_PORT: String(CODEX_APP_SERVER.appServerPort),
  };
}

/** The gateway container's: its role and where its peer's status is. */
export function codexGatewayEnvironment(): Record<string, string> {
  return {
    OCC_RUNTIME_CODEX_ROLE: 'gateway',
    OCC_RUNTIME_CODEX_PEER_ADDRESS: CODEX_APP_SERVER.alias,
    OCC_RUNTIME_CODEX_PEER_STATUS_PORT: String(CODEX_APP_SERVER.statusPort),
  };
}
