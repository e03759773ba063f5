import { StartupFailure } from '../failure.ts';
import { logEvent } from '../log.ts';
import type { AppServerClient } from './app-server-client.ts';
import type { PluginLocation } from './plugin-details.ts';
import { appServerStep, malformedAnswer } from './startup-failure.ts';

/** One selected plugin found in a listed marketplace. */
export interface LocatedPlugin {
  selectionKey: string;
  /** `<plugin>@<marketplace>`, the summary id `plugin/list` reports. */
  nativeId: string;
  location: PluginLocation;
}

interface ListedSummary {
  id: string;
  name: string;
  remotePluginId: string | null;
}
interface ListedMarketplace {
  name: string;
  path: string | null;
  plugins: ListedSummary[];
}

function marketplaces(answer: unknown): ListedMarketplace[] {
  const list = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>).marketplaces : undefined;
  if (!Array.isArray(list)) throw malformedAnswer('plugin/list', 'marketplaces');
  return list.map((entry: unknown) => {
    const { name, path, plugins } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof name !== 'string' || (path !== null && typeof path !== 'string') || !Array.isArray(plugins)) throw malformedAnswer('plugin/list', 'marketplace');
    return {
      name,
      path: path as string | null,
      plugins: plugins.map((plugin: unknown) => {
        const { id, name: pluginName, remotePluginId } = (typeof plugin === 'object' && plugin !== null ? plugin : {}) as Record<string, unknown>;
        if (typeof id !== 'string' || typeof pluginName !== 'string' || (remotePluginId != null && typeof remotePluginId !== 'string'))
          throw malformedAnswer('plugin/list', 'plugin summary');
        return { id, name: pluginName, remotePluginId: (remotePluginId as string | null | undefined) ?? null };
      }),
    };
  });
}

/**
 * `plugin/list` over the marketplaces the runtime was given (`cwds`) and the hosted one when the
 * features allow it, then each selection matched by its summary id. A selection no marketplace
 * lists fails the startup (a discovery failure, [W-2]); a local marketplace is read by its file,
 * a hosted one by its name and the plugin's opaque remote id.
 */
export async function locateSelections(
  client: Pick<AppServerClient, 'request'>,
  selections: readonly { selectionKey: string; nativeId: string }[],
  options: { cwds: readonly string[]; timeoutMs: number; signal: AbortSignal },
): Promise<LocatedPlugin[]> {
  const answer = await appServerStep('the plugin catalog listing', () => client.request<unknown>('plugin/list', { cwds: [...options.cwds] }, options));
  const listed = marketplaces(answer);
  const byId = new Map<string, { marketplace: ListedMarketplace; summary: ListedSummary }>();
  for (const marketplace of listed) for (const summary of marketplace.plugins) if (!byId.has(summary.id)) byId.set(summary.id, { marketplace, summary });
  const missing = selections.filter((selection) => !byId.has(selection.nativeId)).map((selection) => selection.selectionKey);
  if (missing.length > 0) {
    logEvent('plugin.not_in_catalog', { plugins: missing, marketplaces: listed.map((m) => m.name) });
    throw new StartupFailure('PLUGIN_NOT_IN_CATALOG', `${missing.length} selected Codex plugin(s) are in none of the listed marketplaces.`);
  }
  return selections.map(({ selectionKey, nativeId }) => {
    const { marketplace, summary } = byId.get(nativeId)!;
    const location: PluginLocation =
      marketplace.path !== null
        ? { marketplacePath: marketplace.path, pluginName: summary.name }
        : { remoteMarketplaceName: marketplace.name, pluginName: summary.remotePluginId ?? summary.name };
    return { selectionKey, nativeId, location };
  });
}
