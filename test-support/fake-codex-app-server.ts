// A fake `codex app-server` for what the real one cannot show offline: the hosted marketplace
// (`openai-curated-remote`), whose plugins carry concrete apps, whose installs may leave apps
// needing authentication, and whose `codex_apps` MCP server lists the app tools. It answers the
// same JSON-RPC methods with the protocol's shapes (`codex app-server generate-ts` of the pinned
// 0.154.0: PluginListResponse, PluginDetail, PluginInstallResponse, ListMcpServerStatusResponse,
// ConfigReadResponse, ConfigBatchWriteParams, ConfigRequirementsReadResponse) and keeps a
// layered configuration: `system` below the writable `user` layer, a trusted `workspace` above.
import { AppServerError } from '../apps/runtime/src/codex/app-server-client.ts';

export interface FakeHostedPlugin {
  /** The slug: the summary id is `<slug>@openai-curated-remote`. */
  name: string;
  remotePluginId: string;
  version: string;
  apps: { id: string; name: string }[];
  appTemplates?: { id: string }[];
  skills?: { name: string; path: string | null; enabled: boolean }[];
  hooks?: unknown[];
  /** What `plugin/install` does: install, refuse with a JSON-RPC error, or install leaving apps to authenticate. */
  install?: 'ok' | { rpcError: number } | { appsNeedingAuth: string[] };
}

export interface FakeAppServerWorld {
  plugins: FakeHostedPlugin[];
  /** `mcpServerStatus/list` pages, in order (each a list of servers). */
  inventoryPages?: Record<string, unknown>[][];
  layers?: { system?: Record<string, unknown>; workspace?: Record<string, unknown> };
  requirements?: Record<string, unknown> | null;
}

const HOSTED_MARKETPLACE = 'openai-curated-remote';
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deep merge: `upper`'s scalars and arrays win, tables merge key by key. */
function merge(lower: Json, upper: Json): Json {
  const out: Json = structuredClone(lower);
  for (const [key, value] of Object.entries(upper)) out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as Json, value) : structuredClone(value);
  return out;
}

/** `apps."_default".enabled` → ['apps', '_default', 'enabled']: bare keys and JSON/TOML basic strings. */
function splitKeyPath(keyPath: string): string[] {
  const segments: string[] = [];
  let rest = keyPath;
  while (rest.length > 0) {
    if (rest.startsWith('"')) {
      let end = 1;
      while (end < rest.length && (rest[end] !== '"' || rest[end - 1] === '\\')) end++;
      segments.push(JSON.parse(rest.slice(0, end + 1)) as string);
      rest = rest.slice(end + 1);
    } else {
      const dot = rest.indexOf('.');
      segments.push(dot === -1 ? rest : rest.slice(0, dot));
      rest = dot === -1 ? '' : rest.slice(dot);
    }
    if (rest.startsWith('.')) rest = rest.slice(1);
  }
  return segments;
}

export function fakeCodexAppServer(world: FakeAppServerWorld) {
  const installed = new Set<string>();
  const user: Json = {};
  const calls: { method: string; params: unknown }[] = [];
  const summary = (plugin: FakeHostedPlugin) => ({
    id: `${plugin.name}@${HOSTED_MARKETPLACE}`,
    remotePluginId: plugin.remotePluginId,
    version: plugin.version,
    localVersion: null,
    name: plugin.name,
    shareContext: null,
    source: { type: 'remote' },
    installed: installed.has(plugin.name),
    installedAt: null,
    enabled: installed.has(plugin.name),
    installPolicy: 'AVAILABLE',
    installPolicySource: null,
    mustShowInstallationInterstitial: null,
    authPolicy: 'ON_USE',
    availability: 'AVAILABLE',
    disabledReason: null,
    eligiblePlanTypes: null,
    interface: null,
    keywords: [],
  });
  const byRemoteId = (remoteId: unknown) => {
    const plugin = world.plugins.find((p) => p.remotePluginId === remoteId);
    if (!plugin) throw new AppServerError('rpc', 'plugin', -32600, 'plugin not found');
    return plugin;
  };
  const effective = () => merge(merge(world.layers?.system ?? {}, user), world.layers?.workspace ?? {});
  const answer = (method: string, params: Json): unknown => {
    switch (method) {
      case 'plugin/list':
        return { marketplaces: [{ name: HOSTED_MARKETPLACE, path: null, interface: null, plugins: world.plugins.map(summary) }], marketplaceLoadErrors: [], featuredPluginIds: [] };
      case 'plugin/read': {
        if (params.remoteMarketplaceName !== HOSTED_MARKETPLACE) throw new AppServerError('rpc', method, -32600, 'unknown marketplace');
        const plugin = byRemoteId(params.pluginName);
        return {
          plugin: {
            marketplaceName: HOSTED_MARKETPLACE,
            marketplacePath: null,
            summary: summary(plugin),
            shareUrl: null,
            description: null,
            skills: plugin.skills ?? [],
            hooks: plugin.hooks ?? [],
            apps: plugin.apps.map((app) => ({ ...app, description: null, installUrl: null, category: null })),
            appTemplates: plugin.appTemplates ?? [],
            mcpServers: [],
            scheduledTasks: null,
          },
        };
      }
      case 'plugin/install': {
        const plugin = byRemoteId(params.pluginName);
        const outcome = plugin.install ?? 'ok';
        if (typeof outcome === 'object' && 'rpcError' in outcome) throw new AppServerError('rpc', method, outcome.rpcError, 'install refused');
        installed.add(plugin.name);
        const needing = typeof outcome === 'object' ? outcome.appsNeedingAuth : [];
        return {
          authPolicy: 'ON_USE',
          appsNeedingAuth: plugin.apps.filter((app) => needing.includes(app.id)).map((app) => ({ ...app, description: null, installUrl: null, category: null })),
        };
      }
      case 'mcpServerStatus/list': {
        const pages = world.inventoryPages ?? [[]];
        const index = params.cursor === undefined ? 0 : Number(String(params.cursor).slice('page-'.length));
        return { data: pages[index] ?? [], nextCursor: index + 1 < pages.length ? `page-${index + 1}` : null };
      }
      case 'config/read':
        return { config: effective(), origins: {}, layers: null };
      case 'config/batchWrite': {
        for (const edit of params.edits as { keyPath: string; value: unknown; mergeStrategy: string }[]) {
          const segments = splitKeyPath(edit.keyPath);
          let table = user;
          for (const segment of segments.slice(0, -1)) {
            if (!isObject(table[segment])) table[segment] = {};
            table = table[segment] as Json;
          }
          const last = segments.at(-1)!;
          table[last] = edit.mergeStrategy === 'upsert' && isObject(table[last]) && isObject(edit.value) ? merge(table[last] as Json, edit.value) : structuredClone(edit.value);
        }
        return { status: 'ok', version: `v${calls.length}`, filePath: '/fake/config.toml', overriddenMetadata: null };
      }
      case 'configRequirements/read':
        return { requirements: world.requirements ?? null };
      default:
        throw new AppServerError('rpc', method, -32601, 'method not found');
    }
  };
  return {
    calls,
    /** The user layer as the runtime wrote it. */
    userLayer: () => structuredClone(user),
    installed: () => [...installed].sort(),
    async request<T>(method: string, params?: unknown): Promise<T> {
      calls.push({ method, params });
      await new Promise((resolve) => setImmediate(resolve));
      return answer(method, (params ?? {}) as Json) as T;
    },
  };
}
