import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '@occ/contracts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/** `?dryRun=true` on creates and updates (core/dry-run.ts): the real answer, nothing kept, no audit event. */
describe('dry runs of creates and updates', () => {
  let t: TestController;
  let ns: string;
  beforeAll(async () => {
    t = await startTestController();
    ns = t.defaultNamespaceId;
  });
  afterAll(async () => t?.close());

  const auditCount = async () => (await t.request({ method: 'GET', url: '/audit-events?limit=200' })).body.data.items.length as number;

  it('a create answers 201 with the object it would make, marked as a dry run, and keeps nothing: no object, no audit event', async () => {
    const before = await auditCount();
    const name = uniqueName('dry');
    const created = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations?dryRun=true`, body: { name, values: { agents: { defaults: {} } } } });
    expect(created.status, created.raw).toBe(201);
    expect(created.headers['occ-dry-run']).toBe('true');
    expect(created.body.data).toMatchObject({ name, generation: 1, values: { agents: { defaults: {} } } });
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${created.body.data.id}` })).status).toBe(404);
    const listed = (await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations?limit=200` })).body.data.items as Array<{ name: string }>;
    expect(listed.map((c) => c.name)).not.toContain(name);
    expect(await auditCount()).toBe(before);
    // The same name for real: it was never taken.
    expect((await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name, values: {} } })).status).toBe(201);
  });

  it('an update answers 200 with the result and leaves the object as it was; a real update after it starts from the stored version', async () => {
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'first-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { a: 1 } });
    const dry = await t.request({
      method: 'PATCH',
      url: `/namespaces/${ns}/configurations/${cfg.id}?dryRun=true`,
      body: { values: { a: 2 }, secretBindings: { KEY: { secretId: secret.id } } },
    });
    expect(dry.status, dry.raw).toBe(200);
    expect(dry.body.data).toMatchObject({ generation: 2, values: { a: 2 }, secretBindings: { KEY: { secretId: secret.id } } });
    const stored = await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg.id}` });
    expect(stored.body.data).toMatchObject({ generation: 1, values: { a: 1 }, secretBindings: {} });
  });

  it('a dry run is refused exactly as the write would be: bad input 400 naming the field, a taken name 409, no permission as without a dry run', async () => {
    const name = uniqueName('ns');
    await adminCreate(t, '/namespaces', { name });
    const taken = await t.request({ method: 'POST', url: '/namespaces?dryRun=true', body: { name } });
    expect(taken.status).toBe(409);
    const bad = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents?dryRun=true`, body: { name: uniqueName('a'), harness: 'nope' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain('/harness');
    // A caller without the permission gets the refusal the write would get (404 where it may not see the Namespace).
    const nobody = await newPrincipal(t);
    for (const [url, body] of [
      [`/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'v' }],
      ['/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] }],
    ] as const) {
      const real = await t.request({ method: 'POST', url, key: nobody.key, body });
      const dry = await t.request({ method: 'POST', url: `${url}?dryRun=true`, key: nobody.key, body });
      expect([403, 404]).toContain(real.status);
      expect([dry.status, dry.body.error?.code]).toEqual([real.status, real.body.error?.code]);
    }
    const flag = await t.request({ method: 'POST', url: '/namespaces?dryRun=maybe', body: { name: uniqueName('ns') } });
    expect(flag.status).toBe(400);
  });

  it('IAM creates dry-run too; deletes, reads and the deploy (which has its own) take no dryRun query', async () => {
    const before = await auditCount();
    const role = await t.request({ method: 'POST', url: '/iam/roles?dryRun=true', body: { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] } });
    expect(role.status, role.raw).toBe(201);
    expect((await t.request({ method: 'GET', url: `/iam/roles/${role.body.data.id}` })).status).toBe(404);
    expect(await auditCount()).toBe(before);
    const dryRunnable = apiRoutes.filter((route) => 'dryRun' in route && route.dryRun === true).map((route) => `${route.method} ${route.operationId}`);
    expect(dryRunnable.every((entry) => entry.startsWith('POST create') || entry.startsWith('PATCH update'))).toBe(true);
    expect(dryRunnable).toEqual(
      expect.arrayContaining([
        'POST createNamespace',
        'POST createSecret',
        'PATCH updateSecret',
        'POST createConfiguration',
        'PATCH updateConfiguration',
        'POST createAgent',
        'PATCH updateAgent',
        'POST createRole',
        'POST createAccessBinding',
        'POST createRestriction',
      ]),
    );
  });
});
