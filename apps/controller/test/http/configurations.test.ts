import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONFIGURATION_BYTES } from '@occ/contracts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/** A values object whose serialized JSON is exactly `bytes` bytes long. */
function valuesOfSize(bytes: number): Record<string, unknown> {
  const overhead = Buffer.byteLength(JSON.stringify({ blob: '' }), 'utf8');
  const values = { blob: 'x'.repeat(bytes - overhead) };
  expect(Buffer.byteLength(JSON.stringify(values), 'utf8')).toBe(bytes);
  return values;
}

describe('Configurations over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  const newNamespace = async () => (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
  const generationInDb = async (id: string) =>
    Number((await t.database.query<{ generation: number }>('SELECT generation FROM configurations WHERE id = $1', [id])).rows[0]?.generation);

  it('starts at generation 1 and increases it by one on every PATCH, preserving omitted fields', async () => {
    const ns = await newNamespace();
    const name = uniqueName('c');
    const created = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name, values: { agents: { list: [] } } } });
    expect(created.status).toBe(201);
    const cfg = created.body.data;
    expect(cfg).toMatchObject({ name, namespaceId: ns, generation: 1, values: { agents: { list: [] } }, secretBindings: {} });

    const p1 = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { values: { gateway: { port: 1 } } } });
    expect(p1.status).toBe(200);
    expect(p1.body.data).toMatchObject({ generation: 2, name, values: { gateway: { port: 1 } } });

    const renamed = uniqueName('c');
    const p2 = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { name: renamed } });
    expect(p2.status).toBe(200);
    expect(p2.body.data).toMatchObject({ generation: 3, name: renamed, values: { gateway: { port: 1 } } });

    // Even an update to identical values is an update.
    const p3 = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { values: { gateway: { port: 1 } } } });
    expect(p3.body.data.generation).toBe(4);
    const got = await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg.id}` });
    expect(got.body.data.generation).toBe(4);
    expect(await generationInDb(cfg.id)).toBe(4);
  });

  /** Locks the Configuration's row in a transaction of its own (changing nothing) until the returned function is called. */
  const holdRow = async (id: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const held = t.database.transaction(async (tx) => {
      await tx.query('SELECT id FROM configurations WHERE id = $1 FOR UPDATE', [id]);
      locked();
      await released;
    });
    await isLocked;
    return async () => {
      release();
      await held;
    };
  };
  const waitForLockWaiters = async (count: number) => {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await t.database.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0]!.waiting >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${count} transactions waited for the row lock`);
  };
  const updateEvents = async (id: string) =>
    (await t.database.query<{ details: { generation: number } }>(`SELECT details FROM audit_events WHERE action = 'configurations.update' AND resource_id = $1`, [id])).rows
      .map((r) => r.details.generation)
      .sort((a, b) => a - b);

  it('answers ETag "<generation>" on create, get and PATCH, and honours If-Match: stale → 412 and nothing written, current → 200', async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'v' });
    const created = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name: uniqueName('c'), values: { a: 1 } } });
    expect(created.status).toBe(201);
    expect(created.headers.etag).toBe('"1"');
    const url = `/namespaces/${ns}/configurations/${created.body.data.id}`;
    expect((await t.request({ method: 'GET', url })).headers.etag).toBe('"1"');

    const first = await t.request({ method: 'PATCH', url, body: { values: { a: 2 } }, headers: { 'if-match': '"1"' } });
    expect(first.status, first.raw).toBe(200);
    expect(first.headers.etag).toBe('"2"');
    expect(first.body.data.generation).toBe(2);

    // Another editor read generation 1: its PATCH (values, name and bindings) changes nothing at all.
    const stale = await t.request({
      method: 'PATCH',
      url,
      headers: { 'if-match': '"1"' },
      body: { name: uniqueName('stale'), values: { a: 'stale' }, secretBindings: { TOKEN: { secretId: secret.id } } },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    const after = await t.request({ method: 'GET', url });
    expect(after.body.data).toEqual(first.body.data);
    expect(after.headers.etag).toBe('"2"');
    expect(await updateEvents(created.body.data.id)).toEqual([2]);

    // A weak tag names the same generation; `*` and no If-Match are no precondition; anything else is refused.
    const weak = await t.request({ method: 'PATCH', url, body: { values: { a: 3 } }, headers: { 'if-match': 'W/"2"' } });
    expect([weak.status, weak.headers.etag]).toEqual([200, '"3"']);
    const garbage = await t.request({ method: 'PATCH', url, body: { values: { a: 'g' } }, headers: { 'if-match': 'not-an-etag' } });
    expect(garbage.status).toBe(412);
    expect(await generationInDb(created.body.data.id)).toBe(3);
    const any = await t.request({ method: 'PATCH', url, body: { values: { a: 4 } }, headers: { 'if-match': '*' } });
    expect([any.status, any.headers.etag]).toEqual([200, '"4"']);
    const unconditional = await t.request({ method: 'PATCH', url, body: { values: { a: 5 } } });
    expect([unconditional.status, unconditional.headers.etag]).toEqual([200, '"5"']);
    expect(await updateEvents(created.body.data.id)).toEqual([2, 3, 4, 5]);

    // A missing Configuration is 404 whatever the If-Match.
    const missing = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/configuration_missing`, body: { values: {} }, headers: { 'if-match': '"1"' } });
    expect(missing.status).toBe(404);
  });

  it('concurrent PATCHes with the same If-Match: exactly one wins, the others get 412 and write nothing', async () => {
    const ns = await newNamespace();
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const url = `/namespaces/${ns}/configurations/${cfg.id}`;
    // PostgreSQL: another transaction holds the row until all six PATCHes wait for it, so every one
    // of them has started before any writes (a read-then-write check would let them all through).
    // PGlite is one connection: its transactions take turns anyway.
    const release = t.database.kind === 'postgres' ? await holdRow(cfg.id) : () => Promise.resolve();
    const pending = Array.from({ length: 6 }, (_, i) => t.request({ method: 'PATCH', url, body: { values: { writer: i } }, headers: { 'if-match': '"1"' } }));
    if (t.database.kind === 'postgres') await waitForLockWaiters(6);
    await release();
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(winner.headers.etag).toBe('"2"');
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(winner.body.data);
    expect(await generationInDb(cfg.id)).toBe(2);
    expect(await updateEvents(cfg.id)).toEqual([2]);
  });

  it('rejects an empty PATCH and leaves the generation alone', async () => {
    const ns = await newNamespace();
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const res = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: {} });
    expect(res.status).toBe(400);
    expect(await generationInDb(cfg.id)).toBe(1);
  });

  it('accepts values of exactly 256 KiB and refuses 256 KiB + 1 byte with 413 at /values', async () => {
    const ns = await newNamespace();
    const atLimit = valuesOfSize(MAX_CONFIGURATION_BYTES);
    const ok = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name: uniqueName('c'), values: atLimit } });
    expect(ok.status, ok.raw.slice(0, 200)).toBe(201);
    expect(ok.body.data.values).toEqual(atLimit);

    const over = valuesOfSize(MAX_CONFIGURATION_BYTES + 1);
    const name = uniqueName('c');
    const tooBig = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name, values: over } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooBig.body.error.details).toEqual([{ path: '/values', code: 'TOO_LARGE' }]);
    const { rows } = await t.database.query('SELECT id FROM configurations WHERE name = $1', [name]);
    expect(rows).toHaveLength(0);

    // Multi-byte characters count as bytes, not characters.
    const multibyte = { blob: 'é'.repeat(MAX_CONFIGURATION_BYTES / 2) };
    const mb = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name: uniqueName('c'), values: multibyte } });
    expect(mb.status).toBe(413);

    // PATCH is held to the same limit, and a refused PATCH changes nothing.
    const cfg = ok.body.data;
    const patch = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { values: over } });
    expect(patch.status).toBe(413);
    expect(patch.body.error.details).toEqual([{ path: '/values', code: 'TOO_LARGE' }]);
    expect(await generationInDb(cfg.id)).toBe(1);
  });

  it('refuses values that are not a JSON object', async () => {
    const ns = await newNamespace();
    for (const values of [[], 'text', 3, null]) {
      const res = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name: uniqueName('c'), values } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain('/values');
    }
  });

  it("refuses a secretBinding to another Namespace's Secret with 400 CROSS_NAMESPACE_REFERENCE", async () => {
    const ns = await newNamespace();
    const other = await newNamespace();
    const foreign = await adminCreate(t, `/namespaces/${other}/secrets`, { name: uniqueName('s'), value: 'v' });
    const local = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'v' });
    const name = uniqueName('c');
    const res = await t.request({
      method: 'POST',
      url: `/namespaces/${ns}/configurations`,
      body: { name, values: {}, secretBindings: { LOCAL_TOKEN: { secretId: local.id }, OPENAI_API_KEY: { secretId: foreign.id } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual([{ path: '/secretBindings/OPENAI_API_KEY/secretId', code: 'CROSS_NAMESPACE_REFERENCE' }]);
    expect((await t.database.query('SELECT id FROM configurations WHERE name = $1', [name])).rows).toHaveLength(0);

    // The same through PATCH: refused, nothing changes.
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { LOCAL_TOKEN: { secretId: local.id } } });
    const patch = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { secretBindings: { REMOTE: { secretId: foreign.id } } } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details).toEqual([{ path: '/secretBindings/REMOTE/secretId', code: 'CROSS_NAMESPACE_REFERENCE' }]);
    const got = await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg.id}` });
    expect(got.body.data.secretBindings).toEqual({ LOCAL_TOKEN: { secretId: local.id } });
    expect(got.body.data.generation).toBe(1);
  });

  it('requires secret:operate on a bound Secret', async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'v' });
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      [
        { action: 'create', resourceKind: 'configuration' },
        { action: 'read', resourceKind: 'configuration' },
        { action: 'read', resourceKind: 'secret' },
      ],
      { namespaceId: ns },
    );
    const body = { name: uniqueName('c'), values: {}, secretBindings: { TOKEN: { secretId: secret.id } } };
    const denied = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, key: p.key, body });
    expect(denied.status).toBe(403);
    expect((await t.database.query('SELECT id FROM configurations WHERE name = $1', [body.name])).rows).toHaveLength(0);
    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const allowed = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, key: p.key, body });
    expect(allowed.status, allowed.raw).toBe(201);
  });

  it('refuses to delete a Configuration while an Agent uses it, then deletes it', async () => {
    const ns = await newNamespace();
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const other = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });

    const res = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/configurations/${cfg.id}` });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('RESOURCE_CONFLICT');
    expect(res.body.error.details).toEqual([{ path: `/agents/${agent.id}`, code: 'REFERENCED_BY' }]);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg.id}` })).status).toBe(200);

    // Pointing the Agent elsewhere releases it.
    const moved = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { configurationId: other.id } });
    expect(moved.status).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/configurations/${cfg.id}` })).status).toBe(204);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/configurations/${cfg.id}` })).status).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/configurations/${other.id}` })).status).toBe(409);
  });

  it('refuses a duplicate name in one Namespace but allows it in another', async () => {
    const ns = await newNamespace();
    const other = await newNamespace();
    const name = uniqueName('c');
    await adminCreate(t, `/namespaces/${ns}/configurations`, { name, values: {} });
    const dup = await t.request({ method: 'POST', url: `/namespaces/${ns}/configurations`, body: { name, values: {} } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details).toEqual([{ path: '/name', code: 'DUPLICATE_VALUE' }]);
    expect((await t.request({ method: 'POST', url: `/namespaces/${other}/configurations`, body: { name, values: {} } })).status).toBe(201);
  });
});
