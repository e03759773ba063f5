import type { PluginCatalogEntry } from '@occ/contracts';
import {
  PluginDiscoveryError,
  type CatalogDetailsRequest,
  type CatalogListRequest,
  type DiscoveryCredentialKind,
  type PluginDiscovery,
} from '../apps/controller/src/core/ports/plugin-driver.ts';

/** One call a PluginDiscovery received. */
export type DiscoveryCall = { op: 'list'; request: CatalogListRequest; signal: AbortSignal } | { op: 'details'; request: CatalogDetailsRequest; signal: AbortSignal };

/** Decides one call's answer; returning `undefined` falls back to the scripted catalog. */
export type DiscoveryScript = (call: DiscoveryCall) => unknown | Promise<unknown>;

export interface SpyDiscovery extends PluginDiscovery {
  /** Every call, in order: what the endpoints did (and did not) ask of the driver. */
  readonly calls: DiscoveryCall[];
  /** Replaces the answer of every later call (null: the scripted catalog again). */
  script: DiscoveryScript | null;
}

export const SPY_CATALOG: readonly PluginCatalogEntry[] = [
  { id: 'diffs', name: 'Diffs', remoteId: 'plugin_diffs', description: 'Shows diffs.', available: true, tools: null },
  { id: 'linear', name: 'Linear', remoteId: 'plugin_linear', available: true, tools: [{ id: 'linear.search', ownerId: 'linear', name: 'Search issues' }] },
  { id: 'github', name: 'GitHub', remoteId: 'plugin_github', available: true, tools: [] },
  { id: 'legacy', name: 'Legacy', remoteId: 'plugin_legacy', available: false, unavailableReason: 'This release is not supported.', tools: null },
];
const PAGE_SIZE = 2;

/** Cursors of the scripted catalog: the offset, bound to the query that issued it. */
const cursorFor = (q: string, offset: number) => `spy:${offset}:${Buffer.from(q).toString('base64url')}`;

function scriptedPage(request: CatalogListRequest) {
  const q = (request.q ?? '').toLowerCase();
  const matching = SPY_CATALOG.filter((e) => e.id.includes(q) || e.name.toLowerCase().includes(q));
  let offset = 0;
  if (request.cursor !== undefined) {
    const [tag, at, query] = request.cursor.split(':');
    if (tag !== 'spy' || query !== Buffer.from(request.q ?? '').toString('base64url') || !/^\d+$/.test(at ?? '')) throw new PluginDiscoveryError('invalid_cursor');
    offset = Number(at);
  }
  const next = offset + PAGE_SIZE;
  return { plugins: matching.slice(offset, next), nextCursor: next < matching.length ? cursorFor(request.q ?? '', next) : null };
}

function scriptedEntry(request: CatalogDetailsRequest): PluginCatalogEntry {
  const entry = SPY_CATALOG.find((e) => e.remoteId === request.pluginId || e.id === request.pluginId);
  if (!entry) throw new PluginDiscoveryError('not_found');
  return entry;
}

/**
 * A PluginDiscovery for tests (test support only, no network): a small scripted catalog with
 * search, paging and details, a call log, and a `script` hook to answer with anything (errors,
 * hostile or malformed answers, slow calls). A `codex_pat` spy rejects a missing credential.
 */
export function createSpyDiscovery(credential: DiscoveryCredentialKind): SpyDiscovery {
  /** Records the call, then answers with the script, or with the scripted catalog. */
  const answer = async (call: DiscoveryCall, catalog: () => unknown): Promise<never> => {
    spy.calls.push(call);
    const scripted = spy.script ? await spy.script(call) : undefined;
    if (scripted !== undefined) return scripted as never;
    if (credential !== 'none' && !call.request.credential) throw new PluginDiscoveryError('credentials_rejected');
    return catalog() as never;
  };
  const spy: SpyDiscovery = {
    credential,
    calls: [],
    script: null,
    listCatalog: (request, signal) => answer({ op: 'list', request, signal }, () => scriptedPage(request)),
    getCatalogPlugin: (request, signal) => answer({ op: 'details', request, signal }, () => scriptedEntry(request)),
  };
  return spy;
}

/** The default of test controllers: an offline scripted catalog for each harness, as its driver's credential kind. */
export function scriptedDiscoveries(): { openclaw: SpyDiscovery; codex: SpyDiscovery } {
  return { openclaw: createSpyDiscovery('none'), codex: createSpyDiscovery('codex_pat') };
}
