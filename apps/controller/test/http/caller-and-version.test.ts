import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OCC_VERSION } from '@occ/contracts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { newPrincipal } from '../../../../test-support/world.ts';

/** GET /whoami and GET /version: any valid key reads them, whatever its bindings; nothing else does. */
describe('the routes any signed-in caller may read', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  it('a key with no binding at all reads its own principal and the server version', async () => {
    const nobody = await newPrincipal(t);
    const whoami = await t.request({ method: 'GET', url: '/whoami', key: nobody.key });
    expect(whoami.status, whoami.raw).toBe(200);
    expect(whoami.body.data).toEqual({
      principal: { id: nobody.id, kind: 'service', name: expect.any(String), namespaceId: null, agentId: null, createdAt: expect.any(String) },
      credential: 'api_key',
    });
    // It cannot read that principal through the administration route: /whoami is about itself only.
    expect((await t.request({ method: 'GET', url: `/principals/${nobody.id}`, key: nobody.key })).status).toBe(403);

    const version = await t.request({ method: 'GET', url: '/version', key: nobody.key });
    expect(version.status, version.raw).toBe(200);
    expect(version.body.data).toEqual({ version: OCC_VERSION, schemaVersion: expect.any(Number), node: process.version });
    expect(version.body.data.schemaVersion).toBeGreaterThan(0);
  });

  it('the administrator sees itself; the console session says so; no key, a bad key → 401', async () => {
    const admin = await t.request({ method: 'GET', url: '/whoami' });
    expect(admin.body.data).toMatchObject({ principal: { name: 'administrator', kind: 'human' }, credential: 'api_key' });
    const signedIn = await t.request({ method: 'POST', url: '/sessions', key: null, body: { apiKey: t.adminKey } });
    const cookie = String([signedIn.headers['set-cookie']].flat()[0]).split(';')[0]!;
    const bySession = await t.request({ method: 'GET', url: '/whoami', key: null, headers: { cookie } });
    expect(bySession.body.data).toEqual({ ...admin.body.data, credential: 'console_session' });
    for (const url of ['/whoami', '/version']) {
      expect((await t.request({ method: 'GET', url, key: null })).status, url).toBe(401);
      expect((await t.request({ method: 'GET', url, key: `occ_${'x'.repeat(43)}` })).status, url).toBe(401);
    }
  });

  it('/openapi.json gives the release as its version', async () => {
    expect((await t.request({ method: 'GET', url: '/openapi.json', key: null })).body.info.version).toBe(OCC_VERSION);
  });
});
