import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteContract } from '@occ/contracts';
import { createFastifyApp } from '../../src/http/app.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

const key = (method: string, url: string) => `${method} ${url}`;
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The web console's static files (http/console-assets.ts): served by the app, but no API operation. */
// The console's files, and the browser's two single sign-on steps (redirects and pages, not API routes: http/sign-in-browser.ts).
const CONSOLE_ROUTES = [key('GET', '/'), key('HEAD', '/'), key('GET', '/assets/*'), key('HEAD', '/assets/*'), key('GET', '/sign-in/oidc'), key('GET', '/sign-in/oidc/callback')];

describe('route inventory: Fastify routes and /openapi.json are generated from the route table', () => {
  let t: TestController;
  let app: FastifyInstance;
  let inventory: { method: string; url: string }[];
  let doc: any;
  let consoleDirectory: string;

  beforeAll(async () => {
    t = await startTestController();
    // An unbuilt console (an empty directory) registers the same routes as a built one.
    consoleDirectory = await mkdtemp(join(tmpdir(), 'occ-console-'));
    // An `onRoute` observer sees every route before the first is registered: the inventory is
    // what Fastify really serves, not what the route table claims.
    const registered: { method: string; url: string }[] = [];
    app = await createFastifyApp({ deps: t.controller.deps, consoleDirectory, onRoute: (route) => registered.push(route) });
    await app.ready();
    inventory = [...registered];
    const res = await t.request({ method: 'GET', url: '/openapi.json', key: null });
    expect(res.status, res.raw.slice(0, 300)).toBe(200);
    doc = res.body;
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    if (consoleDirectory) await rm(consoleDirectory, { recursive: true, force: true });
  });

  it('the onRoute hook saw the routes (the inventory is not vacuous)', () => {
    expect(inventory.length).toBeGreaterThanOrEqual(routeTable.length);
    expect(inventory).toContainEqual({ method: 'HEAD', url: '/healthz' });
  });

  it('registers every route-table entry with its method and path', () => {
    const seen = new Set(inventory.map((r) => key(r.method, r.url)));
    expect(routeTable.filter((r) => !seen.has(key(r.method, r.path))).map((r) => key(r.method, r.path))).toEqual([]);
    for (const r of routeTable) expect(app.hasRoute({ method: r.method, url: r.path }), key(r.method, r.path)).toBe(true);
  });

  it("registers nothing else, except the HEAD variant of a GET route, the console's static files and the browser's sign-in steps", () => {
    const declared = new Set(routeTable.map((r) => key(r.method, r.path)));
    const extra = inventory.filter((r) => !declared.has(key(r.method, r.url)));
    const unexplained = extra.filter((r) => !(r.method === 'HEAD' && declared.has(key('GET', r.url))));
    expect(unexplained.map((r) => key(r.method, r.url)).sort()).toEqual([...CONSOLE_ROUTES].sort());
  });

  it('the console routes are no API operation: not in the route table, not in /openapi.json', () => {
    expect(routeTable.filter((r) => CONSOLE_ROUTES.includes(key(r.method, r.path)))).toEqual([]);
    const paths = Object.keys((app.swagger() as { paths: Record<string, unknown> }).paths);
    expect(paths.filter((path) => path === '/' || path.startsWith('/assets'))).toEqual([]);
  });

  it('operationIds and (method, path) pairs are unique in the route table', () => {
    const ids = routeTable.map((r) => r.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const pairs = routeTable.map((r) => key(r.method, r.path));
    expect(pairs.filter((p, i) => pairs.indexOf(p) !== i)).toEqual([]);
  });

  it('GET /openapi.json is public and is an OpenAPI 3 document that SwaggerParser validates', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('has exactly one operation per route-table entry: same operationId, method and {param} path', () => {
    const operations: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const method of HTTP_METHODS) if (item[method]) operations.push(`${item[method].operationId} ${method.toUpperCase()} ${path}`);
    }
    const expected = routeTable.map((r) => `${r.operationId} ${r.method} ${openApiPath(r.path)}`);
    expect(operations.sort()).toEqual(expected.sort());
  });

  const operation = (r: RouteContract) => doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];

  it('declares every path parameter of every operation', () => {
    for (const r of routeTable) {
      const names = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
      const declared = (operation(r).parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(declared.sort(), r.operationId).toEqual(names.sort());
    }
  });

  it('every api_key route takes the bearer key or the session cookie; session routes the cookie only; public routes none', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.cookieAuth).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'occ_session' });
    const expected = { api_key: [{ apiKey: [] }, { cookieAuth: [] }], session: [{ cookieAuth: [] }], public: [] };
    for (const r of routeTable) expect(operation(r).security ?? [], r.operationId).toEqual(expected[r.auth]);
  });

  it('every declared error status answers the error envelope {error:{code,message,details?}, meta:{requestId}}', () => {
    for (const r of routeTable.filter((x) => !x.raw)) {
      const responses = operation(r).responses ?? {};
      for (const status of r.errors) {
        const schema = responses[String(status)]?.content?.['application/json']?.schema;
        expect(schema, `${r.operationId} ${status}`).toBeDefined();
        expect(schema.required, `${r.operationId} ${status}`).toEqual(expect.arrayContaining(['error', 'meta']));
        expect(schema.properties.error.required).toEqual(expect.arrayContaining(['code', 'message']));
        expect(Object.keys(schema.properties.error.properties).sort()).toEqual(['code', 'details', 'message']);
        expect(schema.properties.error.properties.details.items.properties).toHaveProperty('path');
        expect(schema.properties.meta.properties).toHaveProperty('requestId');
      }
      expect(responses[String(r.successStatus)], `${r.operationId} ${r.successStatus}`).toBeDefined();
    }
  });

  it('a route table naming an operationId without a handler is refused at startup', async () => {
    const orphan: RouteContract = { ...routeTable.find((r) => r.operationId === 'healthz')!, operationId: 'noSuchOperation', path: '/no-such-route' };
    await expect(createFastifyApp({ deps: t.controller.deps, routes: [...routeTable, orphan] })).rejects.toThrow(/noSuchOperation/);
    await expect(createFastifyApp({ deps: t.controller.deps, handlers: {} })).rejects.toThrow(/No handler/);
  });

  it('an api_key route without a declared permission is refused at startup', async () => {
    const unguarded: RouteContract = { ...routeTable.find((r) => r.auth === 'api_key' && r.permission)!, permission: undefined };
    await expect(createFastifyApp({ deps: t.controller.deps, routes: [unguarded] })).rejects.toThrow(/permission/);
  });

  it('anyCaller (no permission, any valid key) marks only GET routes that take an API key: /whoami and /version, deliberately', async () => {
    expect(
      routeTable
        .filter((r) => r.anyCaller)
        .map((r) => `${r.method} ${r.path} ${r.auth} ${r.permission === undefined}`)
        .sort(),
    ).toEqual(['GET /version api_key true', 'GET /whoami api_key true']);
    const caller = routeTable.find((r) => r.operationId === 'getCaller')!;
    const misuses: RouteContract[] = [
      { ...caller, method: 'POST' },
      { ...caller, auth: 'public' },
      { ...caller, permission: routeTable.find((r) => r.permission)!.permission! },
    ];
    for (const misuse of misuses) await expect(createFastifyApp({ deps: t.controller.deps, routes: [misuse] })).rejects.toThrow(/anyCaller/);
  });
});
