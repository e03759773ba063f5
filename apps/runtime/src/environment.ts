import { isAbsolute } from 'node:path';
import { DEFAULT_UNSELECTED_PLUGINS_MODE, isUnselectedPluginsMode, type UnselectedPluginsMode } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { pickNetworkEnvironment } from '@occ/host-io/network-env';

/** What the compute driver hands the runtime (see README.md, "Contract with the compute driver"). */
/** Where a server listens: an IPv4 address and a port (0: one the OS picks). */
export interface ListenAddress {
  host: string;
  port: number;
}

/** The runtime manifest: a private file (local), a projected file (Kubernetes), or inline (Docker's bounded environment). */
export type ManifestSource = { path: string } | { json: string };

export interface RuntimeEnvironment {
  manifest: ManifestSource;
  /** Where the gateway listens (OCC_RUNTIME_GATEWAY_ADDRESS/PORT; default loopback on a free port). */
  gateway: ListenAddress;
  /** Private (0700) directory of this revision: endpoint.json, the OpenClaw config. */
  revisionDir: string;
  /** The Agent-owned OpenClaw state, kept across revisions (OPENCLAW_STATE_DIR). */
  stateDir: string;
  statusToken: string;
  gatewayToken: string;
  /** HOME for OpenClaw processes: the driver's, else the revision directory. */
  home: string;
  /** The driver's PATH (the pinned Node goes first for every OpenClaw process). */
  path: string;
  lang: string;
  /** The runtime's TMPDIR (absolute), handed to OpenClaw and Codex: their temp files stay in the Agent's own temp directory; null: the system's. */
  tmpDir: string | null;
  catalogPath: string | null;
  npmRegistry: string | null;
  /** The allowlisted CA, proxy and npm variables the driver passed (`@occ/host-io/network-env`): for npm, OpenClaw and the gateway. */
  network: Record<string, string>;
  /** The deadline of one `plugins install` (OCC_RUNTIME_INSTALL_TIMEOUT_MS): past it the source counts as unreachable. */
  installTimeoutMs: number;
  /** Bundled tool plugins nobody selected (OCC_RUNTIME_UNSELECTED_PLUGINS, default `disable`): the translator's setting. */
  unselectedPlugins: UnselectedPluginsMode;
  /**
   * OCC_RUNTIME_HOLD_BEFORE_GATEWAY=1: an earlier revision's gateway still serves the Agent's state,
   * so once installed and verified the runtime publishes `prepared` and changes nothing more of the
   * state (no stale uninstall, no gateway) until the driver's `POST /proceed`. Unset: straight on.
   */
  holdBeforeGateway: boolean;
  /**
   * OCC_RUNTIME_PROCEED_MARKER (absolute): a file the driver writes, on a mount the runtime only
   * reads, when it gives the go. A runtime started to hold that finds it was told to proceed in an
   * earlier start of the same container (an engine restart after a crash), so it holds no more.
   */
  proceedMarker: string | null;
  /** The installation's npm content store, read-only (OCC_RUNTIME_NPM_CONTENT, absolute): copied into this runtime's own npm cache before it installs; null: none. */
  npmContent: string | null;
  /** The revision's transport secret (OCC_RUNTIME_TRANSPORT_SECRET): the key of the Codex app-server credential; null when not given. */
  transportSecret: string | null;
  /** Directories holding local Codex marketplaces (OCC_RUNTIME_CODEX_MARKETPLACES, colon-separated): `plugin/list`'s `cwds`. */
  codexMarketplaces: string[];
  /** The hosted Codex service (OCC_RUNTIME_CODEX_CHATGPT_BASE_URL) and its identity service (OCC_RUNTIME_CODEX_AUTH_BASE_URL); null: Codex's own defaults. */
  codexChatgptBaseUrl: string | null;
  codexAuthBaseUrl: string | null;
  /** Where Codex sends its model requests (OCC_RUNTIME_CODEX_MODEL_BASE_URL, written as CODEX_HOME's `openai_base_url`); null: Codex's default. */
  codexModelBaseUrl: string | null;
  /** Which part of a Codex revision this process runs (OCC_RUNTIME_CODEX_ROLE; codex/roles.ts). */
  codexRole: CodexRole;
  /** Where the app-server listens (OCC_RUNTIME_CODEX_APP_SERVER_ADDRESS/PORT; default loopback, a port the OS picks). */
  codexAppServerListen: ListenAddress;
  /** The app-server runtime's status server, which a `gateway` role reads (OCC_RUNTIME_CODEX_PEER_ADDRESS/STATUS_PORT; the address an IPv4 address or a host name, e.g. the app-server container's on a Docker network); null in the other roles. */
  codexPeer: ListenAddress | null;
}

/**
 * `all`: the app-server and the gateway are children of this one process (`local`). `app-server`:
 * only the dedicated app-server, which holds the codex_pat and publishes its peer status.
 * `gateway`: only OpenClaw, which waits for the peer's status and never sees the codex_pat (the
 * container targets run the two as separate containers).
 */
export const CODEX_ROLES = ['all', 'app-server', 'gateway'] as const;
export type CodexRole = (typeof CODEX_ROLES)[number];

const MIN_TOKEN_LENGTH = 16;
const LOOPBACK = '127.0.0.1';
/** Linux refuses one environment string over 128 KiB (MAX_ARG_STRLEN): the inline manifest stays under it with its name. */
const MAX_INLINE_MANIFEST_BYTES = 120 * 1024;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const PORT_RANGE = { min: 1, max: 65535 };
/** The credential's HMAC key: 256 bits, base64url. */
const MIN_TRANSPORT_SECRET_LENGTH = 32;
/**
 * Default per-install deadline. A plugin with dependencies can take 90 s and more on a loaded 2-core host (measured: 95 s
 * for @openclaw/nostr from the public registry beside a full test run), so the deadline leaves twice that; a refused
 * registry is reported by npm's own (shortened) retries in seconds, and only a registry that never answers waits it out.
 */
export const DEFAULT_INSTALL_TIMEOUT_MS = 180_000;
const INSTALL_TIMEOUT_RANGE = { min: 1_000, max: 600_000 };

/**
 * Reads the OCC_RUNTIME_* variables and removes the two tokens and the transport secret from `process.env`, so no child
 * process can inherit them by accident (children get environments built from nothing).
 * The status token is returned separately: a status server can run even when the rest is invalid.
 */
export function readRuntimeEnvironment(env: NodeJS.ProcessEnv = process.env): {
  statusToken: string | null;
  revisionDir: string | null;
  /** Where the status server listens (OCC_RUNTIME_STATUS_ADDRESS/PORT); null when either is malformed (nothing can be served). */
  statusListen: ListenAddress | null;
  result: RuntimeEnvironment | StartupFailure;
} {
  const take = (name: string): string | null => {
    const value = env[name];
    delete env[name];
    return value === undefined || value === '' ? null : value;
  };
  const statusToken = take('OCC_RUNTIME_STATUS_TOKEN');
  const gatewayToken = take('OCC_RUNTIME_GATEWAY_TOKEN');
  const transportSecret = take('OCC_RUNTIME_TRANSPORT_SECRET');
  const codexMarketplaces = (env.OCC_RUNTIME_CODEX_MARKETPLACES ?? '').split(':').filter((entry) => entry !== '');
  const codexChatgptBaseUrl = env.OCC_RUNTIME_CODEX_CHATGPT_BASE_URL ? httpUrl(env.OCC_RUNTIME_CODEX_CHATGPT_BASE_URL) : null;
  const codexAuthBaseUrl = env.OCC_RUNTIME_CODEX_AUTH_BASE_URL ? httpUrl(env.OCC_RUNTIME_CODEX_AUTH_BASE_URL) : null;
  const codexModelBaseUrl = env.OCC_RUNTIME_CODEX_MODEL_BASE_URL ? httpUrl(env.OCC_RUNTIME_CODEX_MODEL_BASE_URL) : null;
  const revisionDir = absolute(env.OCC_RUNTIME_REVISION_DIR);
  const statusListen = listenAddress(env.OCC_RUNTIME_STATUS_ADDRESS, env.OCC_RUNTIME_STATUS_PORT);
  const gateway = listenAddress(env.OCC_RUNTIME_GATEWAY_ADDRESS, env.OCC_RUNTIME_GATEWAY_PORT);
  const manifestJson = take('OCC_RUNTIME_MANIFEST_JSON');
  const manifestPath = absolute(env.OCC_RUNTIME_MANIFEST);
  const stateDir = absolute(env.OCC_RUNTIME_STATE_DIR);
  const catalogPath = env.OCC_RUNTIME_CATALOG ? absolute(env.OCC_RUNTIME_CATALOG) : null;
  const npmRegistry = env.OCC_RUNTIME_NPM_REGISTRY ? httpUrl(env.OCC_RUNTIME_NPM_REGISTRY) : null;
  const installTimeoutMs = env.OCC_RUNTIME_INSTALL_TIMEOUT_MS ? integerIn(env.OCC_RUNTIME_INSTALL_TIMEOUT_MS, INSTALL_TIMEOUT_RANGE) : DEFAULT_INSTALL_TIMEOUT_MS;
  const unselectedPlugins = env.OCC_RUNTIME_UNSELECTED_PLUGINS || DEFAULT_UNSELECTED_PLUGINS_MODE;
  const hold = env.OCC_RUNTIME_HOLD_BEFORE_GATEWAY ?? '';
  const proceedMarker = env.OCC_RUNTIME_PROCEED_MARKER ? absolute(env.OCC_RUNTIME_PROCEED_MARKER) : null;
  const npmContent = env.OCC_RUNTIME_NPM_CONTENT ? absolute(env.OCC_RUNTIME_NPM_CONTENT) : null;
  const codexRole = env.OCC_RUNTIME_CODEX_ROLE || 'all';
  const codexAppServerListen = listenAddress(env.OCC_RUNTIME_CODEX_APP_SERVER_ADDRESS, env.OCC_RUNTIME_CODEX_APP_SERVER_PORT);
  const codexPeer = env.OCC_RUNTIME_CODEX_PEER_STATUS_PORT ? peerAddress(env.OCC_RUNTIME_CODEX_PEER_ADDRESS, env.OCC_RUNTIME_CODEX_PEER_STATUS_PORT) : null;
  const invalid = (what: string) => ({
    statusToken,
    revisionDir,
    statusListen,
    result: new StartupFailure('RUNTIME_ENVIRONMENT_INVALID', `The runtime environment is incomplete: ${what}.`),
  });
  if (statusToken === null || statusToken.length < MIN_TOKEN_LENGTH) return invalid('OCC_RUNTIME_STATUS_TOKEN is missing or too short');
  // The app-server half of a Codex revision starts no gateway: its container is not given the token.
  if (codexRole !== 'app-server' && (gatewayToken === null || gatewayToken.length < MIN_TOKEN_LENGTH)) return invalid('OCC_RUNTIME_GATEWAY_TOKEN is missing or too short');
  if (revisionDir === null) return invalid('OCC_RUNTIME_REVISION_DIR must be an absolute path');
  if (manifestJson === null && manifestPath === null) return invalid('OCC_RUNTIME_MANIFEST must be an absolute path (or OCC_RUNTIME_MANIFEST_JSON the manifest)');
  if (manifestJson !== null && Buffer.byteLength(manifestJson) > MAX_INLINE_MANIFEST_BYTES)
    return invalid(`OCC_RUNTIME_MANIFEST_JSON is larger than ${MAX_INLINE_MANIFEST_BYTES} bytes`);
  if (gateway === null) return invalid('OCC_RUNTIME_GATEWAY_ADDRESS must be an IPv4 address and OCC_RUNTIME_GATEWAY_PORT a port number');
  if (stateDir === null) return invalid('OCC_RUNTIME_STATE_DIR must be an absolute path');
  if (env.OCC_RUNTIME_CATALOG && catalogPath === null) return invalid('OCC_RUNTIME_CATALOG must be an absolute path');
  if (env.OCC_RUNTIME_NPM_REGISTRY && npmRegistry === null) return invalid('OCC_RUNTIME_NPM_REGISTRY must be an http(s) URL without credentials');
  if (installTimeoutMs === null) return invalid('OCC_RUNTIME_INSTALL_TIMEOUT_MS must be an integer from 1000 to 600000');
  if (!isUnselectedPluginsMode(unselectedPlugins)) return invalid('OCC_RUNTIME_UNSELECTED_PLUGINS must be disable or keep');
  if (hold !== '' && hold !== '1') return invalid('OCC_RUNTIME_HOLD_BEFORE_GATEWAY must be 1 or unset');
  if (env.OCC_RUNTIME_PROCEED_MARKER && proceedMarker === null) return invalid('OCC_RUNTIME_PROCEED_MARKER must be an absolute path');
  if (env.OCC_RUNTIME_NPM_CONTENT && npmContent === null) return invalid('OCC_RUNTIME_NPM_CONTENT must be an absolute path');
  if (transportSecret !== null && transportSecret.length < MIN_TRANSPORT_SECRET_LENGTH) return invalid('OCC_RUNTIME_TRANSPORT_SECRET is too short');
  if (codexMarketplaces.some((entry) => absolute(entry) === null)) return invalid('OCC_RUNTIME_CODEX_MARKETPLACES must list absolute paths');
  if (env.OCC_RUNTIME_CODEX_CHATGPT_BASE_URL && codexChatgptBaseUrl === null) return invalid('OCC_RUNTIME_CODEX_CHATGPT_BASE_URL must be an http(s) URL without credentials');
  if (env.OCC_RUNTIME_CODEX_AUTH_BASE_URL && codexAuthBaseUrl === null) return invalid('OCC_RUNTIME_CODEX_AUTH_BASE_URL must be an http(s) URL without credentials');
  if (env.OCC_RUNTIME_CODEX_MODEL_BASE_URL && codexModelBaseUrl === null) return invalid('OCC_RUNTIME_CODEX_MODEL_BASE_URL must be an http(s) URL without credentials');
  if (!isCodexRole(codexRole)) return invalid('OCC_RUNTIME_CODEX_ROLE must be all, app-server or gateway');
  if (codexAppServerListen === null) return invalid('OCC_RUNTIME_CODEX_APP_SERVER_ADDRESS must be an IPv4 address and OCC_RUNTIME_CODEX_APP_SERVER_PORT a port number');
  if (codexRole === 'gateway' && (codexPeer === null || codexPeer.port === 0))
    return invalid('a Codex gateway needs OCC_RUNTIME_CODEX_PEER_STATUS_PORT (and OCC_RUNTIME_CODEX_PEER_ADDRESS unless the peer is on loopback)');
  return {
    statusToken,
    revisionDir,
    statusListen,
    result: {
      manifest: manifestJson !== null ? { json: manifestJson } : { path: manifestPath! },
      gateway,
      revisionDir,
      stateDir,
      statusToken,
      gatewayToken: gatewayToken ?? '',
      home: absolute(env.HOME) ?? revisionDir,
      path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      lang: env.LANG ?? 'C.UTF-8',
      tmpDir: absolute(env.TMPDIR),
      catalogPath,
      npmRegistry,
      network: pickNetworkEnvironment(env),
      installTimeoutMs,
      unselectedPlugins,
      holdBeforeGateway: hold === '1',
      proceedMarker,
      npmContent,
      transportSecret,
      codexMarketplaces,
      codexChatgptBaseUrl: codexChatgptBaseUrl === null ? null : codexChatgptBaseUrl.replace(/\/$/, ''),
      codexAuthBaseUrl: codexAuthBaseUrl === null ? null : codexAuthBaseUrl.replace(/\/$/, ''),
      codexModelBaseUrl: codexModelBaseUrl === null ? null : codexModelBaseUrl.replace(/\/$/, ''),
      codexRole,
      codexAppServerListen,
      codexPeer: codexRole === 'gateway' ? codexPeer : null,
    },
  };
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Where a peer is reached: an IPv4 address or a host name (default loopback), and a port; null when malformed. */
function peerAddress(address: string | undefined, port: string | undefined): ListenAddress | null {
  const host = address || LOOPBACK;
  const number = port ? integerIn(port, PORT_RANGE) : 0;
  return (IPV4.test(host) || HOST_NAME.test(host)) && number !== null ? { host, port: number } : null;
}

function isCodexRole(value: string): value is CodexRole {
  return (CODEX_ROLES as readonly string[]).includes(value);
}

/** An IPv4 address (default loopback) and a port (default 0: the OS's choice); null when either is malformed. */
function listenAddress(address: string | undefined, port: string | undefined): ListenAddress | null {
  const host = address || LOOPBACK;
  const number = port ? integerIn(port, PORT_RANGE) : 0;
  return IPV4.test(host) && number !== null ? { host, port: number } : null;
}

function absolute(value: string | undefined): string | null {
  return value !== undefined && isAbsolute(value) ? value : null;
}

function integerIn(value: string, range: { min: number; max: number }): number | null {
  if (!/^[0-9]{1,9}$/.test(value)) return null;
  const number = Number(value);
  return number >= range.min && number <= range.max ? number : null;
}

function httpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return null;
    return url.href;
  } catch {
    return null;
  }
}
