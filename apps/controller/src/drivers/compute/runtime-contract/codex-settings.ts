import { statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';

/** A Codex setting OCC cannot use: `occ up` / `occ worker` refuse to start, naming it. */
export class CodexRuntimeSettingError extends Error {
  override readonly name = 'CodexRuntimeSettingError';
}

/** What every Codex runtime gets from the Installation's settings (docs/operations.md, "Codex runtimes"). */
export interface CodexRuntimeSettings {
  /** OCC_RUNTIME_CODEX_MARKETPLACES: directories holding a local Codex marketplace (`plugin/list`'s `cwds`). */
  marketplaces: readonly string[];
  /** OCC_RUNTIME_CODEX_CHATGPT_BASE_URL (Codex's CODEX_APP_SERVER_CHATGPT_BASE_URL); null: Codex's default. */
  chatgptBaseUrl: string | null;
  /** OCC_RUNTIME_CODEX_AUTH_BASE_URL (Codex's CODEX_AUTHAPI_BASE_URL); null: Codex's default. */
  authBaseUrl: string | null;
  /** OCC_RUNTIME_CODEX_MODEL_BASE_URL (Codex's `openai_base_url`): where Codex sends its model requests; null: Codex's default. */
  modelBaseUrl: string | null;
}

/** Where a local marketplace keeps its index, relative to its directory. */
const MARKETPLACE_INDEX = join('.agents', 'plugins', 'marketplace.json');

/**
 * The Codex settings of the Installation (read once at startup):
 * - OCC_CODEX_MARKETPLACES: colon-separated absolute directories, each holding a local Codex
 *   marketplace (`<dir>/.agents/plugins/marketplace.json`);
 * - OCC_CODEX_CATALOG_URL and OCC_CODEX_IDENTITY_URL, the same bases the codex-hosted PluginDriver
 *   discovers from, so a deploy talks to the hosted service its Agent's catalog came from: the
 *   catalog base is Codex's ChatGPT base (no trailing slash), `<identity>/api/accounts` its
 *   auth API base (Codex calls `<it>/v1/user-auth-credential/whoami` with the codex_pat);
 * - OCC_CODEX_MODEL_URL, the Responses API base Codex sends an Agent's turns to (its
 *   `openai_base_url`: `<it>/responses`), with the codex_pat as its bearer token.
 * Unset, the runtime keeps Codex's defaults, which are discovery's defaults too
 * (`https://chatgpt.com/backend-api`, `https://auth.openai.com/api/accounts`; turns: Codex's own
 * choice for its login, `https://chatgpt.com/backend-api/codex` with a codex_pat).
 */
export function codexRuntimeSettings(env: NodeJS.ProcessEnv): CodexRuntimeSettings {
  const catalog = env.OCC_CODEX_CATALOG_URL || undefined;
  const identity = env.OCC_CODEX_IDENTITY_URL || undefined;
  const model = env.OCC_CODEX_MODEL_URL || undefined;
  return {
    marketplaces: marketplaceDirs(env.OCC_CODEX_MARKETPLACES ?? ''),
    chatgptBaseUrl: catalog === undefined ? null : withoutTrailingSlash(httpsBase(catalog, 'OCC_CODEX_CATALOG_URL')),
    authBaseUrl: identity === undefined ? null : withoutTrailingSlash(new URL('api/accounts', httpsBase(identity, 'OCC_CODEX_IDENTITY_URL'))),
    modelBaseUrl: model === undefined ? null : withoutTrailingSlash(httpsBase(model, 'OCC_CODEX_MODEL_URL')),
  };
}

/** The variables a runtime gets from these settings (none when nothing is set). */
export function codexRuntimeVariables(settings: CodexRuntimeSettings | undefined): Record<string, string> {
  if (!settings) return {};
  return {
    ...(settings.marketplaces.length > 0 ? { OCC_RUNTIME_CODEX_MARKETPLACES: settings.marketplaces.join(':') } : {}),
    ...(settings.chatgptBaseUrl !== null ? { OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: settings.chatgptBaseUrl } : {}),
    ...(settings.authBaseUrl !== null ? { OCC_RUNTIME_CODEX_AUTH_BASE_URL: settings.authBaseUrl } : {}),
    ...(settings.modelBaseUrl !== null ? { OCC_RUNTIME_CODEX_MODEL_BASE_URL: settings.modelBaseUrl } : {}),
  };
}

/** Each entry absolute and a directory with a marketplace index; empty entries (`a::b`, a trailing `:`) are ignored. */
function marketplaceDirs(value: string): string[] {
  const dirs = value.split(':').filter((entry) => entry !== '');
  return dirs.map((dir) => {
    if (!isAbsolute(dir)) throw new CodexRuntimeSettingError(`OCC_CODEX_MARKETPLACES must list absolute directories (${dir} is not).`);
    const index = join(dir, MARKETPLACE_INDEX);
    if (!isFile(index)) throw new CodexRuntimeSettingError(`OCC_CODEX_MARKETPLACES: ${dir} holds no local Codex marketplace (${MARKETPLACE_INDEX} is missing).`);
    return normalize(dir).replace(/(.)\/$/, '$1');
  });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * As discovery reads it (drivers/plugin/codex-hosted): HTTPS only, since the codex_pat travels to
 * these services, and no credentials, query or fragment. The error never repeats the value.
 */
function httpsBase(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value.endsWith('/') ? value : `${value}/`);
  } catch {
    throw new CodexRuntimeSettingError(`${name} must be an https:// URL.`);
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
    throw new CodexRuntimeSettingError(`${name} must be an https:// URL without credentials, query or fragment.`);
  }
  return url;
}

function withoutTrailingSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}
