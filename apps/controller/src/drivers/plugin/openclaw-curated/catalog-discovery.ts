import type { PluginCatalogEntry, PluginCatalogPage } from '@occ/contracts';
import { OPENCLAW_SELECTION_PREFIX, type OpenClawCatalog, type OpenClawCatalogPlugin } from '@occ/policy';
import { PluginDiscoveryError, type CatalogDetailsRequest, type CatalogListRequest, type PluginDiscovery } from '../../../core/ports/plugin-driver.ts';
import { CuratedPageCursors } from './page-cursor.ts';

export const CURATED_PAGE_SIZE = 20;

/** Safe catalog metadata for one entry: the prefixed selection key, the pinned artifact, the tools as catalogued. */
function curatedEntry(plugin: OpenClawCatalogPlugin): PluginCatalogEntry {
  return {
    id: `${OPENCLAW_SELECTION_PREFIX}${plugin.id}`,
    name: plugin.name,
    ...(plugin.description ? { description: plugin.description } : {}),
    package: plugin.package,
    version: plugin.version,
    integrity: plugin.integrity,
    bundled: plugin.source === 'bundled',
    available: true,
    // Nothing more can be learnt on demand: a curated plugin is selectable without a tool list.
    selectableWithoutTools: true,
    tools: plugin.tools === null ? null : plugin.tools.map((name) => ({ id: name, ownerId: plugin.pluginId, name })),
  };
}

/** Case-insensitive and blank-insensitive; an empty query lists everything. */
function normalizeQuery(q: string | undefined): string {
  return (q ?? '').trim().toLowerCase();
}

function matches(plugin: OpenClawCatalogPlugin, query: string): boolean {
  return [plugin.id, plugin.name, plugin.description].some((field) => field.toLowerCase().includes(query));
}

/** The catalog is public: a caller that sends a credential has the wrong driver in mind, and none is ever held. */
function refuseCredentialAndAbort(request: { credential?: string }, signal: AbortSignal): void {
  if (request.credential !== undefined) throw new PluginDiscoveryError('credentials_rejected');
  if (signal.aborted) throw new PluginDiscoveryError('unavailable');
}

/**
 * Discovery over the curated catalog (credential `none`): filters its entries by `q` and pages
 * them. It verifies neither tools nor account access: whether a plugin runs is decided when the
 * runtime starts.
 */
export function createCuratedDiscovery(catalog: OpenClawCatalog): PluginDiscovery {
  const cursors = new CuratedPageCursors(catalog);
  const byId = new Map(catalog.plugins.map((plugin) => [plugin.id, plugin]));

  return {
    credential: 'none',
    async listCatalog(request: CatalogListRequest, signal: AbortSignal): Promise<PluginCatalogPage> {
      refuseCredentialAndAbort(request, signal);
      const query = normalizeQuery(request.q);
      const found = query ? catalog.plugins.filter((plugin) => matches(plugin, query)) : catalog.plugins;
      const offset = request.cursor === undefined ? 0 : cursors.offset(query, request.cursor);
      if (offset !== 0 && offset >= found.length) throw new PluginDiscoveryError('invalid_cursor');
      const end = offset + CURATED_PAGE_SIZE;
      return {
        plugins: found.slice(offset, end).map(curatedEntry),
        nextCursor: end < found.length ? cursors.issue(query, end) : null,
      };
    },
    async getCatalogPlugin(request: CatalogDetailsRequest, signal: AbortSignal): Promise<PluginCatalogEntry> {
      refuseCredentialAndAbort(request, signal);
      const key = request.pluginId.startsWith(OPENCLAW_SELECTION_PREFIX) ? request.pluginId.slice(OPENCLAW_SELECTION_PREFIX.length) : request.pluginId;
      const plugin = byId.get(key);
      if (!plugin) throw new PluginDiscoveryError('not_found');
      return curatedEntry(plugin);
    },
  };
}
