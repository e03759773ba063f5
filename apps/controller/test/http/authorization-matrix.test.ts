import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, RESOURCE_KINDS, routeTable, type RouteContract } from '@occ/contracts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { ROUTE_FIXTURES } from '../../../../test-support/route-fixtures.ts';
import { buildWorld, grant, newPrincipal, type World } from '../../../../test-support/world.ts';

/**
 * One concrete request per route, aimed at Namespace A (shared with the other route-wide
 * tests). A route added to the table without a fixture fails the inventory test below.
 */
const FIXTURES = ROUTE_FIXTURES;

/** The same request aimed at the other resource of the same kind in Namespace A (or at B). */
const SIBLING: Record<string, (w: World) => string> = {
  namespace: (w) => `/namespaces/${w.nsB}`,
};

const ALL = RESOURCE_KINDS.flatMap((resourceKind) => ACTIONS.map((action) => ({ action, resourceKind })));
const protectedRoutes = routeTable.filter((r) => r.auth === 'api_key');
/** The routes authorization decides; `anyCaller` ones (/whoami, /version) need a valid key only (caller-and-version.test.ts). */
const permissionRoutes = protectedRoutes.filter((r) => !r.anyCaller);
const isAuthz = (status: number) => status === 401 || status === 403 || status === 404;

/**
 * Every route × scope is decided by the pure route authorization in test/unit/
 * authorization-matrix-decisions.test.ts. Over HTTP, one route per kind of permission (scope,
 * mode, method) proves the controller wires that decision in front of its use case.
 */
function httpSample(routes: RouteContract[]): RouteContract[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    const p = r.permission!;
    const key = `${p.target.scope}/${p.mode}/${r.method}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

describe('authorization matrix over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  const send = async (route: RouteContract, w: World, key: string | null, urlOverride?: string) => {
    const fixture = FIXTURES[route.operationId]!(w);
    return t.request({ method: route.method, url: urlOverride ?? fixture.url, key, ...(fixture.body !== undefined ? { body: fixture.body } : {}) });
  };

  it('has a fixture for every route, and every protected route declares a permission', () => {
    const missing = protectedRoutes.filter((r) => !FIXTURES[r.operationId]).map((r) => r.operationId);
    expect(missing).toEqual([]);
    expect(permissionRoutes.filter((r) => !r.permission)).toEqual([]);
  });

  it('every protected route answers 401 without a key and with a bad key', async () => {
    const w = await buildWorld(t);
    for (const route of protectedRoutes) {
      expect((await send(route, w, null)).status, route.operationId).toBe(401);
      expect((await send(route, w, `occ_${'x'.repeat(43)}`)).status, route.operationId).toBe(401);
    }
  });

  it('console sessions: a cookie that is no live session → 401 everywhere; a live one serves every read and, without its CSRF token, no mutation (403)', async () => {
    const w = await buildWorld(t);
    const signedIn = await t.request({ method: 'POST', url: '/sessions', key: null, body: { apiKey: t.adminKey } });
    expect(signedIn.status, signedIn.raw).toBe(201);
    const cookie = String([signedIn.headers['set-cookie']].flat()[0]).split(';')[0]!;
    for (const route of protectedRoutes) {
      const fixture = FIXTURES[route.operationId]!(w);
      const byCookie = (value: string) =>
        t.request({ method: route.method, url: fixture.url, key: null, headers: { cookie: value }, ...(fixture.body !== undefined ? { body: fixture.body } : {}) });
      expect((await byCookie(`occ_session=${'x'.repeat(43)}`)).status, route.operationId).toBe(401);
      // The administrator's session: reads as the administrator; mutations are refused before
      // anything runs, so the world stays intact for the next route.
      const res = await byCookie(cookie);
      if (route.method === 'GET') expect(res.status, `${route.operationId} ${res.raw.slice(0, 200)}`).toBeLessThan(300);
      else expect(res.status, route.operationId).toBe(403);
    }
  });

  it('samples every kind of permission over HTTP', () => {
    const sample = httpSample(permissionRoutes);
    expect(new Set(sample.map((r) => r.permission!.target.scope)).size).toBe(5);
    expect(sample.length).toBe(14);
  });

  it("deploy's dry run needs exactly what a deploy needs (Agent deploy, in scope, not restricted); a rollback, which edits the Agent, needs Agent update too", async () => {
    const w = await buildWorld(t);
    const url = `/namespaces/${w.nsA}/agents/${w.agentA2}/deploy`;
    const first = await t.request({ method: 'POST', url });
    expect(first.status, first.raw).toBe(202);
    const bodies = [{ dryRun: true }, { fromRevision: 1 }, { fromRevision: first.body.data.id, dryRun: true }];
    const answers = async (key: string) => Promise.all(bodies.map(async (body) => (await t.request({ method: 'POST', url, key, body })).status));

    const nobody = await newPrincipal(t);
    expect(await answers(nobody.key)).toEqual([404, 404, 404]);
    const elsewhere = await newPrincipal(t);
    await grant(t, elsewhere.id, ALL, { namespaceId: w.nsB });
    expect(await answers(elsewhere.key)).toEqual([404, 404, 404]);
    // Reading the Agent and its Configuration is not a rehearsal right: a dry run is a deploy's.
    const reader = await newPrincipal(t);
    await grant(
      t,
      reader.id,
      [
        { action: 'read', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: w.nsA },
    );
    expect(await answers(reader.key)).toEqual([403, 403, 403]);
    const deployer = await newPrincipal(t);
    await grant(
      t,
      deployer.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
      ],
      { namespaceId: w.nsA, resource: { kind: 'agent', id: w.agentA2 } },
    );
    await grant(t, deployer.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: w.nsA, resource: { kind: 'configuration', id: w.cfgA } });
    // A rollback's dry run writes nothing and changes nothing: `deploy` is enough for it.
    expect(await answers(deployer.key)).toEqual([200, 403, 200]);
    await grant(t, deployer.id, [{ action: 'update', resourceKind: 'agent' }], { namespaceId: w.nsA, resource: { kind: 'agent', id: w.agentA2 } });
    expect(await answers(deployer.key)).toEqual([200, 202, 200]);
    expect((await t.request({ method: 'POST', url: '/iam/restrictions', body: { principalId: deployer.id, action: 'deploy', resourceKind: 'agent' } })).status).toBe(201);
    expect(await answers(deployer.key)).toEqual([403, 403, 403]);
  });

  for (const route of httpSample(permissionRoutes)) {
    const permission = route.permission!;
    const scope = permission.target.scope;
    describe(`${route.method} ${route.path}`, () => {
      it('[V-2] refuses a principal with no binding (403/404), or shows it an empty list', async () => {
        const w = await buildWorld(t);
        const p = await newPrincipal(t);
        const res = await send(route, w, p.key);
        if (permission.mode === 'filter' && (scope === 'namespace_collection' || scope === 'installation')) {
          expect(res.status).toBe(200);
          expect(res.body.data.items).toEqual([]);
        } else {
          expect(scope === 'installation' || scope === 'namespace_collection' ? [403] : [404]).toContain(res.status);
        }
      });

      it('treats a grant on another Namespace as out of scope (404), Installation routes as 403', async () => {
        const w = await buildWorld(t);
        const p = await newPrincipal(t);
        await grant(t, p.id, ALL, { namespaceId: w.nsB });
        const res = await send(route, w, p.key);
        if (scope === 'installation' || scope === 'namespace_collection') {
          if (permission.mode === 'filter') expect(res.status).toBe(200);
          else expect(res.status).toBe(403);
        } else {
          expect(res.status).toBe(404);
        }
      });

      if (scope === 'child' || scope === 'namespace') {
        it('honours an exact-resource grant for that resource only', async () => {
          const w = await buildWorld(t);
          const p = await newPrincipal(t);
          const fixture = FIXTURES[route.operationId]!(w);
          const kind = permission.resourceKind;
          const id = scope === 'namespace' ? w.nsA : fixture.url.split('/')[4]!;
          await grant(
            t,
            p.id,
            ALL.filter((x) => x.resourceKind === kind && x.action !== 'create'),
            { namespaceId: w.nsA, resource: { kind, id } },
          );
          // Deploy also checks its references: the Agent's Configuration must be readable.
          if (kind === 'agent') await grant(t, p.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: w.nsA, resource: { kind: 'configuration', id: w.cfgA } });
          const other = scope === 'namespace' ? SIBLING.namespace!(w) : fixture.url.replace(id, kind === 'agent' ? w.agentA : kind === 'secret' ? w.secretA : w.cfgA);
          const elsewhere = await send(route, w, p.key, other);
          expect(elsewhere.status).toBe(404);
          const allowed = await send(route, w, p.key);
          expect(isAuthz(allowed.status), `${allowed.status} ${allowed.raw}`).toBe(false);
        });
      }

      if (permission.mode === 'exact') {
        it('is denied by a restriction on its action even with a full grant', async () => {
          const w = await buildWorld(t);
          const p = await newPrincipal(t);
          await grant(t, p.id, ALL, {});
          const allowed = await send(route, w, p.key);
          expect(isAuthz(allowed.status), `${allowed.status} ${allowed.raw}`).toBe(false);
          const w2 = await buildWorld(t);
          for (const action of permission.actions) {
            const res = await t.request({ method: 'POST', url: '/iam/restrictions', body: { principalId: p.id, action, resourceKind: permission.resourceKind } });
            expect(res.status).toBe(201);
          }
          const denied = await send(route, w2, p.key);
          expect(permission.actions.includes('read') ? [403, 404] : [403]).toContain(denied.status);
        });
      }
    });
  }
});
