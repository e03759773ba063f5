import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { whoamiAnswer } from './fake-codex-identity.ts';
import { createFakePluginService, pluginServiceRouteOf, type FakePluginService, type PluginServiceRoute, type ServiceAnswer } from './fake-codex-plugin-service.ts';
import { throwawayTls } from './throwaway-tls.ts';

/**
 * A real HTTPS server (throwaway CA, port 0) speaking the hosted Codex catalog's wire format:
 * whoami on the identity origin; `ps/plugins/list|search|{id}`, `ps/apps/batch` and the
 * workspace's managed-policy bundle (`wham/config/bundle`, empty: no policies) under `/backend-api/`;
 * and what the real `codex app-server` needs to install and use a hosted plugin (installed list,
 * install, bundle download, the `codex_apps` MCP server: fake-codex-plugin-service.ts). It records
 * every request and can be told to misbehave on one route.
 */

export type FakeRoute = 'whoami' | 'list' | 'search' | 'details' | 'batch' | 'config-bundle' | PluginServiceRoute;

export type Misbehaviour =
  | { kind: 'status'; status: number }
  /** A 302 to another path on the same server. */
  | { kind: 'redirect' }
  /** A body larger than 4 MiB, announced by content-length. */
  | { kind: 'oversized-declared' }
  /** A chunked body that keeps growing past 4 MiB (no content-length). */
  | { kind: 'oversized-streamed' }
  /** Headers at once, then one byte every `intervalMs`, forever. */
  | { kind: 'slow-body'; intervalMs?: number }
  /** Not JSON. */
  | { kind: 'malformed' }
  /** Valid JSON of the wrong shape. */
  | { kind: 'wrong-shape' }
  /** A well-formed answer that quotes the caller's bearer token back. */
  | { kind: 'echo-token' }
  /** list/search: `next_page_token` equal to the `pageToken` asked for. */
  | { kind: 'same-page-token' };

export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

export interface FakeAccount {
  accountId: string;
  fedramp?: boolean;
  /** The ChatGPT plan whoami reports; default `enterprise` (Codex then loads the workspace's managed policies). */
  plan?: string;
}

export interface FakeTool {
  name: string;
  description?: string;
  is_read_only?: boolean;
  is_enabled?: boolean;
}

export interface FakeApp {
  id: string;
  /** The real app-server reads `name` (and `description`) from the batch answer for `plugin/read`'s apps. */
  name?: string;
  description?: string;
  status?: string;
  is_enabled?: boolean;
  /** Absent: the batch answer carries no tool list for this app. */
  tools?: FakeTool[];
}

/** One upstream plugin item, as `ps/plugins/*` serve it. */
export type FakePluginItem = Record<string, unknown> & { id: string; name: string };

export interface FakeHostedCatalog {
  catalogBaseUrl: string;
  identityBaseUrl: string;
  /** The throwaway CA (PEM) the server's certificate chains to. */
  ca: string;
  /** Everything received, oldest first. */
  requests: RecordedRequest[];
  accounts: Map<string, FakeAccount>;
  plugins: FakePluginItem[];
  apps: Map<string, FakeApp>;
  /** The plugin service's state for the account: installs, apps needing authentication, the codex_apps tools and what they received. */
  service: FakePluginService;
  /** Make one route misbehave (until `behave()`). */
  misbehave(route: FakeRoute, how: Misbehaviour): void;
  behave(): void;
  /** True once a response the fake was still writing was cut off by the client. */
  readonly clientCancelledBody: boolean;
  close(): Promise<void>;
}

/** A supported, available GLOBAL plugin item with one app `asdk_app_<slug>`. */
export function fakePluginItem(slug: string, overrides: Partial<FakePluginItem> & { release?: Record<string, unknown> } = {}): FakePluginItem {
  const { release, ...rest } = overrides;
  return {
    id: `plugin_asdk_app_${slug}`,
    name: slug,
    scope: 'GLOBAL',
    installation_policy: 'AVAILABLE',
    authentication_policy: 'ON_USE',
    status: 'ENABLED',
    requires_local_executor: false,
    release: {
      version: '1.0.0',
      display_name: slug.charAt(0).toUpperCase() + slug.slice(1),
      description: `The ${slug} plugin.`,
      app_ids: [`asdk_app_${slug}`],
      bundle_download_url: `https://files.example.test/bundles/${slug}.zip?sig=secret-download-signature`,
      interface: {
        short_description: `Work with ${slug}.`,
        website_url: `https://${slug}.example.test/`,
        privacy_policy_url: `https://${slug}.example.test/privacy`,
        terms_of_service_url: `https://${slug}.example.test/terms`,
        logo_url: `https://cdn.example.test/${slug}.png`,
      },
      ...release,
    },
    ...rest,
  };
}

const ONE_MIB = 1024 * 1024;

export async function startFakeHostedCatalog(): Promise<FakeHostedCatalog> {
  const tls = throwawayTls();
  const requests: RecordedRequest[] = [];
  const accounts = new Map<string, FakeAccount>();
  const apps = new Map<string, FakeApp>();
  const plugins: FakePluginItem[] = [];
  const misbehaviours = new Map<FakeRoute, Misbehaviour>();
  const timers = new Set<NodeJS.Timeout>();
  let clientCancelledBody = false;
  const service = createFakePluginService(plugins);

  const reply = (res: ServerResponse, answer: ServiceAnswer) => {
    if (answer.raw === undefined) return send(res, answer.status, answer.json);
    res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/octet-stream', 'content-length': answer.raw.length });
    res.end(answer.raw);
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  /** Writes chunks until the client goes away; notes a cancellation seen mid-body. */
  const stream = (res: ServerResponse, chunk: Buffer, total: number, everyMs: number) => {
    let written = 0;
    res.on('close', () => {
      if (!res.writableFinished) clientCancelledBody = true;
    });
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (everyMs > 0) {
          res.write(chunk);
          const timer = setTimeout(() => {
            timers.delete(timer);
            pump();
          }, everyMs);
          timers.add(timer);
          return;
        }
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };

  const misbehaveWith = (how: Misbehaviour, req: IncomingMessage, res: ServerResponse, token: string, origin: string, valid: () => unknown) => {
    switch (how.kind) {
      case 'status':
        return send(res, how.status, { error: { message: `upstream says no: internal detail for ${req.url}` } });
      case 'redirect':
        res.writeHead(302, { location: `${origin}/elsewhere` });
        return res.end();
      case 'oversized-declared':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(5 * ONE_MIB) });
        return stream(res, Buffer.alloc(64 * 1024, 0x20), 5 * ONE_MIB, 0);
      case 'oversized-streamed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return stream(res, Buffer.alloc(64 * 1024, 0x20), 64 * ONE_MIB, 0);
      case 'slow-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        return stream(res, Buffer.from(' '), Number.MAX_SAFE_INTEGER, how.intervalMs ?? 50);
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"plugins": [ {"id": ');
      case 'wrong-shape':
        return send(res, 200, { plugins: 'none', chatgpt_account_id: 42, apps: {} });
      case 'echo-token': {
        const body = valid() as Record<string, unknown>;
        return send(res, 200, { ...body, echo: `you sent ${token}`, chatgpt_account_id: (body.chatgpt_account_id as string) ?? 'x' });
      }
      case 'same-page-token':
        return send(res, 200, { plugins: [], pagination: { next_page_token: new URL(req.url ?? '/', origin).searchParams.get('pageToken') ?? 'loop' } });
    }
  };

  const page = (items: FakePluginItem[], query: URLSearchParams) => {
    const limit = Math.max(1, Math.min(Number(query.get('limit') ?? 20) || 20, 100));
    const token = query.get('pageToken');
    const offset = token === null ? 0 : Number(/^page-(\d+)$/u.exec(token)?.[1] ?? NaN);
    if (!Number.isInteger(offset)) return undefined;
    const next = offset + limit < items.length ? `page-${offset + limit}` : null;
    return { plugins: items.slice(offset, offset + limit), pagination: { next_page_token: next } };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, rawBody: string, origin: string) => {
    const url = new URL(req.url ?? '/', origin);
    const recorded: RecordedRequest = { method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: { ...req.headers } };
    if (rawBody) {
      try {
        recorded.body = JSON.parse(rawBody);
      } catch {
        recorded.body = rawBody;
      }
    }
    requests.push(recorded);

    const token = /^Bearer (.+)$/u.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const account = accounts.get(token);
    const route = routeOf(req.method ?? '', url.pathname);
    if (!route) return send(res, 404, { error: 'no such route' });

    const valid = (): unknown => {
      // Every field the real identity service answers: Codex reads a PAT login from all of them,
      // and without chatgpt_user_id / chatgpt_plan_type it stays signed out (it asks again, and its
      // model requests go out with no bearer).
      if (route === 'whoami') {
        return whoamiAnswer({ ...account, plan: account?.plan ?? 'enterprise', email: 'someone@example.test' });
      }
      if (route === 'config-bundle') return {};
      if (route === 'list') return page(plugins, url.searchParams);
      if (route === 'search') {
        const q = (url.searchParams.get('q') ?? '').toLowerCase();
        return page(
          plugins.filter((p) =>
            JSON.stringify([p.name, (p.release as { display_name?: string } | undefined)?.display_name])
              .toLowerCase()
              .includes(q),
          ),
          url.searchParams,
        );
      }
      if (route === 'details') {
        const item = plugins.find((p) => p.id === decodeURIComponent(url.pathname.slice('/backend-api/ps/plugins/'.length)));
        return item && service.withDownloadUrl(item, origin, url.searchParams.get('includeDownloadUrls') === 'true');
      }
      if (route !== 'batch') return service.answer(route, req.method ?? '', url, recorded.body, origin).json;
      const ids = (recorded.body as { app_ids?: string[] } | undefined)?.app_ids ?? [];
      return { apps: ids.flatMap((id) => (apps.has(id) ? [apps.get(id)] : [])) };
    };

    const how = misbehaviours.get(route);
    if (how) return misbehaveWith(how, req, res, token, origin, valid);
    // Neither carries a bearer from the real app-server: the bundle URL is signed, and with a PAT
    // login Codex sends the codex_apps server no Authorization and no account header.
    if (route === 'bundle' || route === 'codex-apps') return reply(res, service.answer(route, req.method ?? '', url, recorded.body, origin));
    if (!account) return send(res, 401, { error: 'invalid token' });
    if (route !== 'whoami' && route !== 'config-bundle') {
      // `plugins/featured` is the one catalog call Codex makes without the product header.
      const skuOk = route === 'featured' || req.headers['oai-product-sku'] === 'codex';
      if (req.headers['chatgpt-account-id'] !== account.accountId || !skuOk) return send(res, 403, { error: 'wrong account' });
      if ((route === 'list' || route === 'search') && url.searchParams.get('scope') !== 'GLOBAL') return send(res, 400, { error: 'scope' });
    }
    if (route === 'install') return reply(res, service.answer(route, req.method ?? '', url, recorded.body, origin));
    const body = valid();
    if (body === undefined) return send(res, route === 'details' ? 404 : 400, { error: 'not found' });
    return send(res, 200, body);
  };

  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8'), `https://localhost:${(server.address() as AddressInfo).port}`));
    res.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;

  return {
    catalogBaseUrl: `${origin}/backend-api/`,
    identityBaseUrl: `${origin}/`,
    ca: tls.ca,
    requests,
    accounts,
    plugins,
    apps,
    service: service.state,
    misbehave: (route, how) => void misbehaviours.set(route, how),
    behave: () => misbehaviours.clear(),
    get clientCancelledBody() {
      return clientCancelledBody;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function routeOf(method: string, path: string): FakeRoute | undefined {
  // First: `ps/plugins/installed` would otherwise read as the details of a plugin called "installed".
  const serviceRoute = pluginServiceRouteOf(method, path);
  if (serviceRoute) return serviceRoute;
  if (method === 'GET' && path === '/api/accounts/v1/user-auth-credential/whoami') return 'whoami';
  if (method === 'GET' && path === '/backend-api/ps/plugins/list') return 'list';
  if (method === 'GET' && path === '/backend-api/ps/plugins/search') return 'search';
  if (method === 'POST' && path === '/backend-api/ps/apps/batch') return 'batch';
  if (method === 'GET' && path === '/backend-api/wham/config/bundle') return 'config-bundle';
  if (method === 'GET' && /^\/backend-api\/ps\/plugins\/[^/]+$/u.test(path)) return 'details';
  return undefined;
}
