import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

describe('Namespaces over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  /** Follows nextCursor until it is null; returns every page's ids in order. */
  async function walk(url: string, limit: number, key?: string): Promise<{ pages: string[][] }> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const sep = url.includes('?') ? '&' : '?';
      const res = await t.request({ method: 'GET', url: `${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, ...(key ? { key } : {}) });
      expect(res.status, res.raw).toBe(200);
      pages.push(res.body.data.items.map((x: { id: string }) => x.id));
      cursor = res.body.data.nextCursor;
      if (cursor === null) return { pages };
      expect(typeof cursor).toBe('string');
    }
    throw new Error('pagination did not terminate');
  }

  it('creates, gets and lists a Namespace', async () => {
    const name = uniqueName('ns');
    const res = await t.request({ method: 'POST', url: '/namespaces', body: { name } });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
    const ns = res.body.data;
    expect(Object.keys(ns).sort()).toEqual(['createdAt', 'id', 'name']);
    expect(ns.name).toBe(name);
    expect(ns.id).toMatch(/^ns_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const got = await t.request({ method: 'GET', url: `/namespaces/${ns.id}` });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(ns);

    const list = await t.request({ method: 'GET', url: '/namespaces?limit=200' });
    expect(list.status).toBe(200);
    const ids = list.body.data.items.map((x: { id: string }) => x.id);
    expect(ids).toContain(ns.id);
    expect(ids).toContain(t.defaultNamespaceId);
  });

  it('refuses a duplicate name with 409 naming /name', async () => {
    const name = uniqueName('ns');
    await adminCreate(t, '/namespaces', { name });
    const res = await t.request({ method: 'POST', url: '/namespaces', body: { name } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('RESOURCE_CONFLICT');
    expect(res.body.error.details).toEqual([{ path: '/name', code: 'DUPLICATE_VALUE' }]);
  });

  it('refuses to delete a non-empty Namespace, listing every remaining resource', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'v-1' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });

    const res = await t.request({ method: 'DELETE', url: `/namespaces/${ns}` });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('NAMESPACE_NOT_EMPTY');
    expect(res.body.error.details).toHaveLength(3);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: `/agents/${agent.id}`, code: 'RESOURCE_REMAINS' },
        { path: `/configurations/${cfg.id}`, code: 'RESOURCE_REMAINS' },
        { path: `/secrets/${secret.id}`, code: 'RESOURCE_REMAINS' },
      ]),
    );
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}` })).status).toBe(200);

    // Remove one at a time: the list shrinks accordingly.
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/agents/${agent.id}` })).status).toBe(204);
    const again = await t.request({ method: 'DELETE', url: `/namespaces/${ns}` });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual(
      expect.arrayContaining([
        { path: `/configurations/${cfg.id}`, code: 'RESOURCE_REMAINS' },
        { path: `/secrets/${secret.id}`, code: 'RESOURCE_REMAINS' },
      ]),
    );
    expect(again.body.error.details).toHaveLength(2);
  });

  it('deletes an empty Namespace: 204, then 404', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const del = await t.request({ method: 'DELETE', url: `/namespaces/${ns}` });
    expect(del.status).toBe(204);
    expect(del.raw).toBe('');
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}` })).status).toBe(404);
    const second = await t.request({ method: 'DELETE', url: `/namespaces/${ns}` });
    expect(second.status).toBe(404);
    expect(second.body.error.code).toBe('NOT_FOUND');
    const list = await t.request({ method: 'GET', url: '/namespaces?limit=200' });
    expect(list.body.data.items.map((x: { id: string }) => x.id)).not.toContain(ns);
  });

  it('paginates with limit and opaque cursors: every Namespace exactly once', async () => {
    for (let i = 0; i < 7; i++) await adminCreate(t, '/namespaces', { name: uniqueName('page') });
    const all = await t.request({ method: 'GET', url: '/namespaces?limit=200' });
    expect(all.body.data.nextCursor).toBeNull();
    const expected: string[] = all.body.data.items.map((x: { id: string }) => x.id);
    expect(expected.length).toBeGreaterThanOrEqual(8);

    const { pages } = await walk('/namespaces', 3);
    for (const page of pages.slice(0, -1)) expect(page).toHaveLength(3);
    expect(pages.at(-1)!.length).toBeGreaterThanOrEqual(1);
    expect(pages.at(-1)!.length).toBeLessThanOrEqual(3);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected);
  });

  it('refuses a tampered cursor and a cursor from another list with 400 at /cursor', async () => {
    for (let i = 0; i < 3; i++) await adminCreate(t, '/namespaces', { name: uniqueName('cur') });
    const first = await t.request({ method: 'GET', url: '/namespaces?limit=1' });
    const cursor: string = first.body.data.nextCursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);

    for (const bad of [cursor.slice(0, -4), `x${cursor}`, Buffer.from('{"l":"namespaces","a":5}').toString('base64url'), 'AAAA']) {
      const res = await t.request({ method: 'GET', url: `/namespaces?limit=1&cursor=${bad}` });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/cursor']);
    }

    // A valid cursor of the Namespace list means nothing to a Secret list.
    const res = await t.request({ method: 'GET', url: `/namespaces/${t.defaultNamespaceId}/secrets?cursor=${cursor}` });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: '/cursor', code: 'INVALID_VALUE' }]);
    // …nor does one Namespace's Agent list cursor to another Namespace's.
    const nsA = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const nsB = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${nsA}/configurations`, { name: uniqueName('c'), values: {} });
    for (let i = 0; i < 2; i++) await adminCreate(t, `/namespaces/${nsA}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const agentsPage = await t.request({ method: 'GET', url: `/namespaces/${nsA}/agents?limit=1` });
    const agentCursor: string = agentsPage.body.data.nextCursor;
    expect(agentCursor).toBeTruthy();
    const cross = await t.request({ method: 'GET', url: `/namespaces/${nsB}/agents?cursor=${agentCursor}` });
    expect(cross.status).toBe(400);
    expect(cross.body.error.details).toEqual([{ path: '/cursor', code: 'INVALID_VALUE' }]);
  });

  it('filters lists by read BEFORE paging: exact grants on 3 of 10 Agents give pages of 2 + 1', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agents: string[] = [];
    for (let i = 0; i < 10; i++) {
      agents.push((await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' })).id);
    }
    // Spread the grants over the id order so hidden rows sit between visible ones.
    const sorted = [...agents].sort();
    const granted = [sorted[1]!, sorted[5]!, sorted[9]!];
    const p = await newPrincipal(t);
    for (const id of granted) await grant(t, p.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: ns, resource: { kind: 'agent', id } });

    const full = await t.request({ method: 'GET', url: `/namespaces/${ns}/agents`, key: p.key });
    expect(full.status).toBe(200);
    expect(full.body.data.items.map((a: { id: string }) => a.id).sort()).toEqual([...granted].sort());
    expect(full.body.data.nextCursor).toBeNull();

    const page1 = await t.request({ method: 'GET', url: `/namespaces/${ns}/agents?limit=2`, key: p.key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.items).toHaveLength(2);
    expect(page1.body.data.nextCursor).toEqual(expect.any(String));
    const page2 = await t.request({ method: 'GET', url: `/namespaces/${ns}/agents?limit=2&cursor=${page1.body.data.nextCursor}`, key: p.key });
    expect(page2.status).toBe(200);
    expect(page2.body.data.items).toHaveLength(1);
    expect(page2.body.data.nextCursor).toBeNull();
    const seen = [...page1.body.data.items, ...page2.body.data.items].map((a: { id: string }) => a.id);
    expect(seen.sort()).toEqual([...granted].sort());

    // The administrator, paging the same list, sees all ten.
    const { pages } = await walk(`/namespaces/${ns}/agents`, 4);
    expect(pages.map((pg) => pg.length)).toEqual([4, 4, 2]);
    expect(pages.flat().sort()).toEqual(sorted);
  });
});
