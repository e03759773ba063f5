import { Agent } from 'node:https';
import type { PluginCatalogEntry, PluginCatalogPage } from '@occ/contracts';
import { PluginDiscoveryError, type CatalogDetailsRequest, type CatalogListRequest, type PluginDiscovery } from '../../../core/ports/plugin-driver.ts';
import { boundedJsonRequest, containsAny, type HttpsTarget } from './bounded-https.ts';
import { CursorSeal } from './cursor.ts';
import { readHostedPlugin, readNextPageToken, REMOTE_ID_PATTERN, type HostedPlugin } from './hosted-entries.ts';
import { catalogHeaders, checkPatForm, fetchIdentity } from './hosted-identity.ts';
import { readTools } from './hosted-tools.ts';
import { invalid, optionalArray, record } from './wire.ts';

const DEFAULT_CATALOG_BASE_URL = 'https://chatgpt.com/backend-api/';
const DEFAULT_IDENTITY_BASE_URL = 'https://auth.openai.com/';
const DEFAULT_DEADLINE_MS = 15_000;
const PAGE_LIMIT = 20;
const MAX_PAGE_ITEMS = 200;

export interface CodexHostedDiscoveryOptions {
  /** The hosted catalog (`ps/plugins/…`, `ps/apps/batch`), HTTPS only. */
  catalogBaseUrl?: string;
  /** The identity service (`api/accounts/v1/user-auth-credential/whoami`), HTTPS only. */
  identityBaseUrl?: string;
  /** Extra trusted root certificates (PEM) for both services, e.g. a test's throwaway CA. */
  ca?: string;
  /** The deadline of one whole discovery call (all its upstream requests), in ms. */
  deadlineMs?: number;
  /** Signs paging cursors; share one key across replicas. Random per process when absent. */
  cursorKey?: Uint8Array;
}

/** Presentation-only guidance shown with every page; never written into selections. */
const SETUP: NonNullable<PluginCatalogPage['setup']> = {
  message: 'Hosted plugins come from the ChatGPT workspace catalog. A workspace admin decides which plugins and apps the account may use.',
  links: [
    { label: 'ChatGPT workspace admin', url: 'https://chatgpt.com/admin' },
    { label: 'OpenAI admin console', url: 'https://admin.openai.com/' },
  ],
};

function httpsBase(value: string, name: string): URL {
  const url = new URL(value.endsWith('/') ? value : `${value}/`);
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
    throw new Error(`${name} must be an https:// URL without credentials, query or fragment`);
  }
  return url;
}

/**
 * Credential-scoped discovery against the hosted Codex plugin catalog (docs/api.md, "Plugin discovery").
 * Identity comes from the PAT via whoami, never from the caller; every call is bounded in time
 * and size, follows no redirects, and fails only with a PluginDiscoveryError carrying a reason.
 */
export function createHostedDiscovery(options: CodexHostedDiscoveryOptions = {}): PluginDiscovery {
  const catalogBase = httpsBase(options.catalogBaseUrl ?? DEFAULT_CATALOG_BASE_URL, 'The catalog base URL');
  const identityBase = httpsBase(options.identityBaseUrl ?? DEFAULT_IDENTITY_BASE_URL, 'The identity base URL');
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  if (!Number.isInteger(deadlineMs) || deadlineMs < 1 || deadlineMs > 60_000) throw new Error('deadlineMs must be 1–60000');
  // Connections are reused across callers (credentials travel in headers, never in the TLS session).
  const agent = new Agent({ keepAlive: true, maxSockets: 32, timeout: 30_000, ...(options.ca ? { ca: options.ca } : {}) });
  const target: HttpsTarget = { ca: options.ca, agent };
  const cursors = new CursorSeal(options.cursorKey);

  /** Runs one discovery call under the deadline; the result must not echo what `forbid` lists. */
  async function bounded<T>(signal: AbortSignal, work: (deadline: AbortSignal, forbid: (value: string) => void) => Promise<T>): Promise<T> {
    const forbidden: string[] = [];
    // An own timer, not AbortSignal.timeout: that signal may be collected before it fires when
    // only AbortSignal.any refers to it, and the deadline would silently vanish.
    const deadline = new AbortController();
    const stop = () => deadline.abort();
    const timer = setTimeout(stop, deadlineMs);
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    try {
      const result = await work(deadline.signal, (value) => forbidden.push(value));
      if (containsAny(JSON.stringify(result), forbidden)) return invalid();
      return result;
    } catch (error) {
      if (error instanceof PluginDiscoveryError) throw error;
      throw new PluginDiscoveryError('unavailable');
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  async function catalogGet(
    path: string,
    params: Record<string, string | undefined>,
    headers: Record<string, string>,
    credential: string,
    deadline: AbortSignal,
    notFoundOn404 = false,
  ) {
    const url = new URL(path, catalogBase);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    return boundedJsonRequest(target, { method: 'GET', url, headers, forbidden: [credential], notFoundOn404 }, deadline);
  }

  return {
    credential: 'codex_pat',

    listCatalog(request: CatalogListRequest, signal: AbortSignal): Promise<PluginCatalogPage> {
      return bounded(signal, async (deadline, forbid) => {
        const credential = checkPatForm(request.credential);
        forbid(credential);
        const query = request.q?.trim() ?? '';
        // A foreign cursor fails here, before any network I/O.
        const pageToken = request.cursor === undefined ? undefined : cursors.open(credential, query, request.cursor);
        const identity = await fetchIdentity(target, identityBase, credential, deadline);
        forbid(identity.accountId);
        const body = record(
          await catalogGet(
            query ? 'ps/plugins/search' : 'ps/plugins/list',
            { scope: 'GLOBAL', limit: String(PAGE_LIMIT), q: query || undefined, pageToken },
            catalogHeaders(credential, identity),
            credential,
            deadline,
          ),
        );
        const items = optionalArray(body.plugins, MAX_PAGE_ITEMS) ?? invalid();
        const next = readNextPageToken(body);
        // A token that leads back to this page would page forever.
        if (next !== null && next === pageToken) return invalid();
        const plugins = new Map<string, PluginCatalogEntry>();
        for (const plugin of items.map(readHostedPlugin)) {
          if (plugin && !plugins.has(plugin.entry.id)) plugins.set(plugin.entry.id, plugin.entry);
        }
        return { plugins: [...plugins.values()], nextCursor: next === null ? null : cursors.seal(credential, query, next), setup: SETUP };
      });
    },

    getCatalogPlugin(request: CatalogDetailsRequest, signal: AbortSignal): Promise<PluginCatalogEntry> {
      return bounded(signal, async (deadline, forbid) => {
        const credential = checkPatForm(request.credential);
        forbid(credential);
        if (!REMOTE_ID_PATTERN.test(request.pluginId)) throw new PluginDiscoveryError('not_found');
        const identity = await fetchIdentity(target, identityBase, credential, deadline);
        forbid(identity.accountId);
        const headers = catalogHeaders(credential, identity);
        // No includeDownloadUrls: OCC never needs, returns or holds bundle URLs.
        const raw = await catalogGet(`ps/plugins/${encodeURIComponent(request.pluginId)}`, {}, headers, credential, deadline, true);
        const plugin: HostedPlugin | undefined = readHostedPlugin(raw);
        if (!plugin) throw new PluginDiscoveryError('not_found');
        if (plugin.remoteId !== request.pluginId) return invalid();
        if (!plugin.entry.available) return plugin.entry;
        const batch = await boundedJsonRequest(
          target,
          {
            method: 'POST',
            url: new URL('ps/apps/batch', catalogBase),
            headers,
            json: { app_ids: plugin.apps, include_tools: true },
            forbidden: [credential],
          },
          deadline,
        );
        return { ...plugin.entry, tools: readTools(plugin.apps, batch) };
      });
    },
  };
}
