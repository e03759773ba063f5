import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';

/** A runtime network setting OCC cannot use: `occ up` / `occ worker` refuse to start. */
export class RuntimeNetworkSettingError extends Error {
  override readonly name = 'RuntimeNetworkSettingError';
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The network variables every runtime gets (read once at startup; docs/operations.md, "Runtime
 * network settings"): the allowlisted CA, proxy and npm variables of the operator's environment,
 * then OCC's own settings, which win:
 * - OCC_NPM_REGISTRY: the npm registry plugins are installed from;
 * - OCC_RUNTIME_CA_FILE: a PEM bundle runtimes trust in addition to the default roots;
 * - OCC_RUNTIME_PROXY: the http(s) proxy of runtimes' HTTPS and HTTP traffic.
 * Errors name the setting, never the proxy's value (it may hold credentials).
 */
export function runtimeNetworkSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const caFile = env.OCC_RUNTIME_CA_FILE || undefined;
  const proxy = env.OCC_RUNTIME_PROXY || undefined;
  if (caFile !== undefined) checkCaFile(caFile);
  if (proxy !== undefined && !isHttpUrl(proxy)) throw new RuntimeNetworkSettingError('OCC_RUNTIME_PROXY must be an http:// or https:// URL.');
  const npmRegistry = env.OCC_NPM_REGISTRY || undefined;
  // npm credentials never reach a runtime (plugins run there): a registry URL may not carry any.
  // OCC_NPM_REGISTRY replaces the inherited spellings, so only the one that will be used is checked.
  for (const name of npmRegistry ? ['OCC_NPM_REGISTRY'] : ['npm_config_registry', 'NPM_CONFIG_REGISTRY']) {
    const value = env[name];
    if (!value) continue;
    if (!isHttpUrl(value)) throw new RuntimeNetworkSettingError(`${name} must be an http:// or https:// URL.`);
    if (hasUserinfo(value)) throw new RuntimeNetworkSettingError(`${name} must not carry credentials (user:password@): runtimes run plugin code.`);
  }
  return runtimeNetworkEnvironment(env, { npmRegistry, caFile, proxy });
}

function hasUserinfo(value: string): boolean {
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

/** A readable file of one or more PEM certificates, each of which parses. */
function checkCaFile(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RuntimeNetworkSettingError(`OCC_RUNTIME_CA_FILE (${path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}.`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new RuntimeNetworkSettingError(`OCC_RUNTIME_CA_FILE (${path}) holds no PEM certificate.`);
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch {
      throw new RuntimeNetworkSettingError(`OCC_RUNTIME_CA_FILE (${path}): certificate ${index + 1} of ${blocks.length} is not a valid X.509 certificate.`);
    }
  });
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
