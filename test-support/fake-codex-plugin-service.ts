// The hosted plugin service as the real `codex app-server` (0.154.0) drives it when it installs and
// uses a plugin of the remote marketplace `openai-curated-remote`, mounted by fake-hosted-catalog.ts
// (which owns the catalog items, the TLS, the recording and the auth checks). Wire facts from
// the prototype against the pinned binary (docs/plans/codex-harness.md, "hosted paths on the real
// app-server"): every answer below is the shape that binary accepts. Test support only.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakePluginItem } from './fake-hosted-catalog.ts';

/** The plugin-service routes the catalog fake mounts (its `FakeRoute`s too, so each can misbehave). */
export type PluginServiceRoute = 'installed' | 'suggested' | 'featured' | 'install' | 'bundle' | 'codex-apps';

/** One tool of the `codex_apps` MCP server. */
export interface FakeCodexAppsTool {
  /** The app (connector) id that owns it: `_meta.connector_id`. */
  app: string;
  name: string;
  /** `_meta._codex_apps.resource_uri`, `/<app>/<target>/<action>`: what a catalog action id binds through. */
  resourceUri?: string;
  /** MCP `annotations.readOnlyHint`. */
  readOnly?: boolean;
}

/** One JSON-RPC message the codex_apps server received. */
export interface FakeMcpMessage {
  method: string;
  id?: number | string;
  params?: unknown;
}

export interface FakePluginService {
  /** Remote plugin ids installed for the account (→ enabled): `ps/plugins/installed`. */
  installed: Map<string, boolean>;
  /** Apps the account has not connected: an install answers those of the plugin in `app_ids_needing_auth`. */
  appsNeedingAuth: Set<string>;
  codexAppsTools: FakeCodexAppsTool[];
  /** Every JSON-RPC message posted to the codex_apps server, oldest first. */
  mcpMessages: FakeMcpMessage[];
  /** A `tools/call` result by tool name; a tool without one answers a text echo of its arguments. */
  toolResults: Map<string, unknown>;
}

export interface ServiceAnswer {
  status: number;
  json?: unknown;
  /** A non-JSON body (the bundle; an empty 202). */
  raw?: Buffer;
  type?: string;
}

export function pluginServiceRouteOf(method: string, path: string): PluginServiceRoute | undefined {
  if (method === 'GET' && path === '/backend-api/ps/plugins/installed') return 'installed';
  if (method === 'GET' && path === '/backend-api/ps/plugins/suggested/codex') return 'suggested';
  if (method === 'GET' && path === '/backend-api/plugins/featured') return 'featured';
  if (method === 'POST' && /^\/backend-api\/ps\/plugins\/[^/]+\/install$/u.test(path)) return 'install';
  if (method === 'GET' && /^\/files\/bundles\/[^/]+\/[^/]+\.tar\.gz$/u.test(path)) return 'bundle';
  // Any method: the binary GETs it first (for an SSE stream, answered 405) before it POSTs.
  if (path === '/backend-api/ps/mcp') return 'codex-apps';
  return undefined;
}

export function createFakePluginService(plugins: readonly FakePluginItem[]) {
  const state: FakePluginService = { installed: new Map(), appsNeedingAuth: new Set(), codexAppsTools: [], mcpMessages: [], toolResults: new Map() };
  // Stands in for the signed, unauthenticated storage URL the real service hands out.
  const signature = randomBytes(8).toString('hex');
  const bundles = new Map<string, Buffer>();
  const release = (item: FakePluginItem) => (item.release ?? {}) as Record<string, unknown>;
  const version = (item: FakePluginItem) => String(release(item).version ?? '');

  /** The item, its download URL pointing here when asked for (the binary downloads only what install reads). */
  const withDownloadUrl = (item: FakePluginItem, origin: string, asked: boolean): FakePluginItem => {
    if (!asked) return item;
    const url = `${origin}/files/bundles/${encodeURIComponent(item.id)}/${encodeURIComponent(version(item))}.tar.gz?sig=${signature}`;
    return { ...item, release: { ...release(item), bundle_download_url: url } };
  };

  const answer = (route: PluginServiceRoute, method: string, url: URL, body: unknown, origin: string): ServiceAnswer => {
    const q = url.searchParams;
    switch (route) {
      case 'installed': {
        // 0.154.0 asks with and without `scope`; no scope means GLOBAL. No workspace plugins here.
        if ((q.get('scope') ?? 'GLOBAL') !== 'GLOBAL') return { status: 200, json: { plugins: [], pagination: { next_page_token: null } } };
        const items = plugins
          .filter((p) => state.installed.has(p.id))
          .map((p) => ({ ...withDownloadUrl(p, origin, q.get('includeDownloadUrls') === 'true'), enabled: state.installed.get(p.id), disabled_skill_names: [] }));
        return { status: 200, json: { plugins: items, pagination: { next_page_token: null } } };
      }
      case 'suggested':
        // The top-level `enabled` is required (without it the binary logs "missing field `enabled`").
        return { status: 200, json: { enabled: false, plugins: [] } };
      case 'featured':
        return { status: 200, json: [] };
      case 'install': {
        const id = decodeURIComponent(url.pathname.split('/').at(-2)!);
        const item = plugins.find((p) => p.id === id);
        if (!item) return { status: 404, json: { detail: 'plugin not found' } };
        state.installed.set(id, true);
        // The binary's `appsNeedingAuth` comes from this field alone (empty when it is absent).
        const appIds = (release(item).app_ids as string[] | undefined) ?? [];
        const needing = q.get('includeAppsNeedingAuth') === 'true' ? { app_ids_needing_auth: appIds.filter((app) => state.appsNeedingAuth.has(app)) } : {};
        return { status: 200, json: { id, enabled: true, ...needing } };
      }
      case 'bundle': {
        const [, , , rawId, file] = url.pathname.split('/');
        const item = plugins.find((p) => p.id === decodeURIComponent(rawId!) && `${encodeURIComponent(version(p))}.tar.gz` === file);
        if (!item || q.get('sig') !== signature) return { status: 403, json: { detail: 'bad signature' } };
        const key = `${item.id}@${version(item)}`;
        if (!bundles.has(key)) bundles.set(key, pluginBundle(item.name, version(item), (release(item).app_ids as string[] | undefined) ?? []));
        return { status: 200, raw: bundles.get(key), type: 'application/gzip' };
      }
      case 'codex-apps':
        return codexApps(state, method, body);
    }
  };

  return { state, answer, withDownloadUrl };
}

/**
 * The plugin's bundle, made at test time: a flat .tar.gz whose root holds `.codex-plugin/plugin.json`
 * (its `name` must be the item's) — the binary refuses a `./` entry ("empty path") or a wrapping directory.
 */
function pluginBundle(name: string, version: string, appIds: readonly string[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'occ-fake-bundle-'));
  try {
    mkdirSync(join(dir, 'root', '.codex-plugin'), { recursive: true });
    writeFileSync(join(dir, 'root', '.codex-plugin', 'plugin.json'), JSON.stringify({ name, version, description: `The ${name} plugin.`, apps: './.app.json' }));
    writeFileSync(join(dir, 'root', '.app.json'), JSON.stringify({ apps: Object.fromEntries(appIds.map((id) => [id, { id }])) }));
    execFileSync('tar', ['-czf', join(dir, 'bundle.tar.gz'), '-C', join(dir, 'root'), '.codex-plugin', '.app.json']);
    return readFileSync(join(dir, 'bundle.tar.gz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The `codex_apps` MCP server (streamable HTTP): one `application/json` JSON-RPC answer per POST,
 * no SSE stream (GET is 405), no session id. With a PAT login the binary sends it no bearer and no
 * account header, so nothing here checks them.
 */
function codexApps(state: FakePluginService, method: string, body: unknown): ServiceAnswer {
  if (method !== 'POST') return { status: 405, json: { detail: 'Method Not Allowed' } };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { status: 400, json: { detail: 'one JSON-RPC message per request' } };
  const message = body as { id?: number | string; method?: unknown; params?: unknown };
  if (typeof message.method !== 'string') return { status: 400, json: { detail: 'not a JSON-RPC request' } };
  state.mcpMessages.push({ method: message.method, ...(message.id === undefined ? {} : { id: message.id }), ...(message.params === undefined ? {} : { params: message.params }) });
  if (message.id === undefined) return { status: 202, raw: Buffer.alloc(0) };
  const ok = (result: unknown): ServiceAnswer => ({ status: 200, json: { jsonrpc: '2.0', id: message.id, result } });
  const params = (message.params ?? {}) as { protocolVersion?: string; name?: string; arguments?: unknown };
  switch (message.method) {
    case 'initialize':
      return ok({
        protocolVersion: params.protocolVersion ?? '2025-06-18',
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'fake-codex-apps', version: '0.0.1' },
      });
    case 'tools/list':
      return ok({ tools: state.codexAppsTools.map(mcpTool) });
    // Asked even though `capabilities.resources` is not announced.
    case 'resources/list':
      return ok({ resources: [] });
    case 'resources/templates/list':
      return ok({ resourceTemplates: [] });
    case 'ping':
      return ok({});
    case 'tools/call': {
      if (!state.codexAppsTools.some((tool) => tool.name === params.name))
        return { status: 200, json: { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unknown tool ${String(params.name)}` } } };
      return ok(
        state.toolResults.get(params.name!) ?? { content: [{ type: 'text', text: JSON.stringify({ tool: params.name, arguments: params.arguments ?? null }) }], isError: false },
      );
    }
    default:
      return { status: 200, json: { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } } };
  }
}

/** MCP `Tool`; the binary passes `_meta` through verbatim to `mcpServerStatus/list`. */
function mcpTool(tool: FakeCodexAppsTool) {
  return {
    name: tool.name,
    description: `${tool.name} (${tool.app}).`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: true },
    annotations: { readOnlyHint: tool.readOnly ?? false },
    _meta: { connector_id: tool.app, ...(tool.resourceUri ? { _codex_apps: { resource_uri: tool.resourceUri } } : {}) },
  };
}
