import { isAbsolute } from 'node:path';
import { DEFAULT_UNSELECTED_PLUGINS_MODE, isUnselectedPluginsMode, type UnselectedPluginsMode } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { pickNetworkEnvironment } from './network-env.ts';

/** What the compute driver hands the runtime (see README.md, "Contract with the compute driver"). */
export interface RuntimeEnvironment {
  manifestPath: string;
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
  catalogPath: string | null;
  npmRegistry: string | null;
  /** The allowlisted CA, proxy and npm variables the driver passed (network-env.ts): for npm, OpenClaw and the gateway. */
  network: Record<string, string>;
  /** The deadline of one `plugins install` (OCC_RUNTIME_INSTALL_TIMEOUT_MS): past it the source counts as unreachable. */
  installTimeoutMs: number;
  /** Bundled tool plugins nobody selected (OCC_RUNTIME_UNSELECTED_PLUGINS, default `disable`): the translator's setting. */
  unselectedPlugins: UnselectedPluginsMode;
}

const MIN_TOKEN_LENGTH = 16;
/** Default per-install deadline: a healthy registry installs a plugin in seconds; a dead one is reported well under two minutes. */
export const DEFAULT_INSTALL_TIMEOUT_MS = 90_000;
const INSTALL_TIMEOUT_RANGE = { min: 1_000, max: 600_000 };

/**
 * Reads the OCC_RUNTIME_* variables and removes the two tokens from `process.env`, so no child
 * process can inherit them by accident (children get environments built from nothing).
 * The status token is returned separately: a status server can run even when the rest is invalid.
 */
export function readRuntimeEnvironment(env: NodeJS.ProcessEnv = process.env): { statusToken: string | null; revisionDir: string | null; result: RuntimeEnvironment | StartupFailure } {
  const take = (name: string): string | null => {
    const value = env[name];
    delete env[name];
    return value === undefined || value === '' ? null : value;
  };
  const statusToken = take('OCC_RUNTIME_STATUS_TOKEN');
  const gatewayToken = take('OCC_RUNTIME_GATEWAY_TOKEN');
  const revisionDir = absolute(env.OCC_RUNTIME_REVISION_DIR);
  const manifestPath = absolute(env.OCC_RUNTIME_MANIFEST);
  const stateDir = absolute(env.OCC_RUNTIME_STATE_DIR);
  const catalogPath = env.OCC_RUNTIME_CATALOG ? absolute(env.OCC_RUNTIME_CATALOG) : null;
  const npmRegistry = env.OCC_RUNTIME_NPM_REGISTRY ? httpUrl(env.OCC_RUNTIME_NPM_REGISTRY) : null;
  const installTimeoutMs = env.OCC_RUNTIME_INSTALL_TIMEOUT_MS ? integerIn(env.OCC_RUNTIME_INSTALL_TIMEOUT_MS, INSTALL_TIMEOUT_RANGE) : DEFAULT_INSTALL_TIMEOUT_MS;
  const unselectedPlugins = env.OCC_RUNTIME_UNSELECTED_PLUGINS || DEFAULT_UNSELECTED_PLUGINS_MODE;
  const invalid = (what: string) => ({ statusToken, revisionDir, result: new StartupFailure('RUNTIME_ENVIRONMENT_INVALID', `The runtime environment is incomplete: ${what}.`) });
  if (statusToken === null || statusToken.length < MIN_TOKEN_LENGTH) return invalid('OCC_RUNTIME_STATUS_TOKEN is missing or too short');
  if (gatewayToken === null || gatewayToken.length < MIN_TOKEN_LENGTH) return invalid('OCC_RUNTIME_GATEWAY_TOKEN is missing or too short');
  if (revisionDir === null) return invalid('OCC_RUNTIME_REVISION_DIR must be an absolute path');
  if (manifestPath === null) return invalid('OCC_RUNTIME_MANIFEST must be an absolute path');
  if (stateDir === null) return invalid('OCC_RUNTIME_STATE_DIR must be an absolute path');
  if (env.OCC_RUNTIME_CATALOG && catalogPath === null) return invalid('OCC_RUNTIME_CATALOG must be an absolute path');
  if (env.OCC_RUNTIME_NPM_REGISTRY && npmRegistry === null) return invalid('OCC_RUNTIME_NPM_REGISTRY must be an http(s) URL without credentials');
  if (installTimeoutMs === null) return invalid('OCC_RUNTIME_INSTALL_TIMEOUT_MS must be an integer from 1000 to 600000');
  if (!isUnselectedPluginsMode(unselectedPlugins)) return invalid('OCC_RUNTIME_UNSELECTED_PLUGINS must be disable or keep');
  return {
    statusToken,
    revisionDir,
    result: {
      manifestPath,
      revisionDir,
      stateDir,
      statusToken,
      gatewayToken,
      home: absolute(env.HOME) ?? revisionDir,
      path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      lang: env.LANG ?? 'C.UTF-8',
      catalogPath,
      npmRegistry,
      network: pickNetworkEnvironment(env),
      installTimeoutMs,
      unselectedPlugins,
    },
  };
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
