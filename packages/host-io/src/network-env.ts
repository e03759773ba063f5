// Runtime network settings: the only variables of an operator's environment that reach a
// runtime and, through it, npm, the OpenClaw CLI and the gateway (docs/operations.md, "Runtime
// network settings"). Pure: the compute driver and the runtime apply the same rule.

/** Standard CA, proxy and npm registry variables, passed as they are when set (non-empty). */
export const RUNTIME_NETWORK_VARIABLES: readonly string[] = Object.freeze([
  // Node (every Node process: the runtime, npm, the OpenClaw CLI and gateway) and OpenSSL-based tools.
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Proxies, both spellings: tools disagree on which one they read.
  ...bothCases(['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'ALL_PROXY']),
  // npm reads npm_config_* case-insensitively. Registry credentials (`//host/:_authToken`) never pass.
  ...bothCases(['npm_config_registry', 'npm_config_cafile', 'npm_config_ca', 'npm_config_strict_ssl', 'npm_config_https_proxy', 'npm_config_proxy', 'npm_config_noproxy']),
]);

/** The OCC settings that replace what the operator's environment says (each one optional). */
export interface RuntimeNetworkOverrides {
  /** npm registry URL for plugin installs. */
  npmRegistry?: string | null | undefined;
  /** A PEM bundle trusted in addition to the default roots. */
  caFile?: string | null | undefined;
  /** http(s) proxy URL for HTTPS and HTTP. */
  proxy?: string | null | undefined;
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/** The allowlisted variables of `env` that are set; nothing else of `env` is read. */
export function pickNetworkEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of RUNTIME_NETWORK_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}

/**
 * Applies the OCC overrides to picked network variables. An override removes every spelling of
 * the variables it replaces, so an inherited upper-case form cannot win over it:
 * - npmRegistry → npm_config_registry;
 * - caFile → NODE_EXTRA_CA_CERTS (added to Node's default roots, for npm too); npm's own `ca` and
 *   `cafile` are dropped because npm trusts only those when they are set, which would undo "in addition";
 * - proxy → HTTPS_PROXY/HTTP_PROXY (both cases) and npm's proxy/https-proxy; loopback is added to
 *   NO_PROXY so the runtime's own loopback traffic (gateway, status) never goes to the proxy.
 */
export function withNetworkOverrides(network: Readonly<Record<string, string>>, overrides: RuntimeNetworkOverrides): Record<string, string> {
  const out = { ...network };
  const replace = (names: readonly string[], value: Record<string, string>) => {
    for (const name of bothCases(names)) delete out[name];
    Object.assign(out, value);
  };
  if (overrides.npmRegistry) replace(['npm_config_registry'], { npm_config_registry: overrides.npmRegistry });
  if (overrides.caFile) {
    replace(['NODE_EXTRA_CA_CERTS'], { NODE_EXTRA_CA_CERTS: overrides.caFile });
    replace(['npm_config_cafile', 'npm_config_ca'], {});
  }
  if (overrides.proxy) {
    const proxy = overrides.proxy;
    const noProxy = withLoopback(out.NO_PROXY ?? out.no_proxy ?? out.npm_config_noproxy ?? out.NPM_CONFIG_NOPROXY);
    replace(['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'], { HTTPS_PROXY: proxy, https_proxy: proxy, HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: noProxy, no_proxy: noProxy });
    replace(['npm_config_proxy', 'npm_config_https_proxy', 'npm_config_noproxy'], { npm_config_proxy: proxy, npm_config_https_proxy: proxy, npm_config_noproxy: noProxy });
  }
  return out;
}

/** The runtime's network variables: the allowlisted part of `env`, then the OCC overrides. */
export function runtimeNetworkEnvironment(env: Readonly<Record<string, string | undefined>>, overrides: RuntimeNetworkOverrides = {}): Record<string, string> {
  return withNetworkOverrides(pickNetworkEnvironment(env), overrides);
}

function bothCases(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((name) => [name.toUpperCase(), name.toLowerCase()]))];
}

function withLoopback(noProxy: string | undefined): string {
  const entries = (noProxy ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return [...entries, ...LOOPBACK.filter((host) => !entries.includes(host))].join(',');
}
