import { readFileSync } from 'node:fs';
import type { CodexHostedDiscoveryOptions } from './hosted-catalog-client.ts';

/**
 * Discovery options from the environment (read once at startup):
 * - OCC_CODEX_CATALOG_URL: the hosted catalog base (default https://chatgpt.com/backend-api/)
 * - OCC_CODEX_IDENTITY_URL: the identity service base (default https://auth.openai.com/)
 * - OCC_CODEX_CA_FILE: a PEM file of extra trusted roots (e.g. a corporate TLS proxy's CA)
 * - OCC_DISCOVERY_CURSOR_KEY: base64, at least 32 bytes, shared by all replicas so a cursor
 *   issued by one replica opens on another (random per process when unset)
 */
export function codexHostedDiscoveryOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): CodexHostedDiscoveryOptions {
  const options: CodexHostedDiscoveryOptions = {};
  if (env.OCC_CODEX_CATALOG_URL) options.catalogBaseUrl = env.OCC_CODEX_CATALOG_URL;
  if (env.OCC_CODEX_IDENTITY_URL) options.identityBaseUrl = env.OCC_CODEX_IDENTITY_URL;
  if (env.OCC_CODEX_CA_FILE) options.ca = readFileSync(env.OCC_CODEX_CA_FILE, 'utf8');
  if (env.OCC_DISCOVERY_CURSOR_KEY) {
    const key = Buffer.from(env.OCC_DISCOVERY_CURSOR_KEY, 'base64');
    if (key.length < 32) throw new Error('OCC_DISCOVERY_CURSOR_KEY must be base64 of at least 32 bytes');
    options.cursorKey = key;
  }
  return options;
}
