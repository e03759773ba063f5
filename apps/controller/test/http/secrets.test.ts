import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

const METADATA_KEYS = ['createdAt', 'id', 'name', 'namespaceId', 'updatedAt', 'version'];
const canary = (label: string) => `canary-${label}-${randomBytes(12).toString('hex')}`;

interface SecretRow {
  id: string;
  namespace_id: string;
  driver_id: string;
  sealed_value: string;
  version: number;
}

describe('Secrets over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  const newNamespace = async () => (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;

  async function row(id: string): Promise<SecretRow> {
    const { rows } = await t.database.query<SecretRow>('SELECT id, namespace_id, driver_id, sealed_value, version FROM secrets WHERE id = $1', [id]);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  /** The value the SecretDriver yields for a stored row, opened under the given Secret's binding. */
  function open(r: SecretRow, binding: { namespaceId: string; secretId: string }): Promise<string> {
    return t.controller.deps.secrets.withValue({ driverId: r.driver_id, sealedValue: r.sealed_value }, binding, async (v) => v);
  }

  it('answers metadata only: create, get, list and PATCH never carry the value', async () => {
    const ns = await newNamespace();
    const value = canary('meta');
    const created = await t.request({ method: 'POST', url: `/namespaces/${ns}/secrets`, body: { name: uniqueName('s'), value } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(METADATA_KEYS);
    expect(created.body.data.version).toBe(1);
    expect(created.body.data.namespaceId).toBe(ns);
    const id = created.body.data.id;

    const got = await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets/${id}` });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body.data).sort()).toEqual(METADATA_KEYS);
    expect(got.body.data).toEqual(created.body.data);

    const list = await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets` });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toHaveLength(1);
    expect(Object.keys(list.body.data.items[0]).sort()).toEqual(METADATA_KEYS);

    const next = canary('meta-rotated');
    const patched = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${id}`, body: { value: next } });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.body.data).sort()).toEqual(METADATA_KEYS);
    for (const res of [created, got, list, patched]) {
      expect(res.raw).not.toContain(value);
      expect(res.raw).not.toContain(next);
      expect(JSON.stringify(res.headers)).not.toContain(value);
    }
    expect(t.logs.join('\n')).not.toContain(value);
    expect(t.logs.join('\n')).not.toContain(next);
  });

  it('rotates on PATCH {value}: the version increments and withValue yields the new value', async () => {
    const ns = await newNamespace();
    const first = canary('v1');
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: first });
    const binding = { namespaceId: ns, secretId: secret.id };
    expect(await open(await row(secret.id), binding)).toBe(first);

    const second = canary('v2');
    const res = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: second } });
    expect(res.status).toBe(200);
    expect(res.body.data.version).toBe(2);
    expect(res.body.data.name).toBe(secret.name);
    const stored = await row(secret.id);
    expect(stored.version).toBe(2);
    expect(await open(stored, binding)).toBe(second);

    const third = canary('v3');
    const again = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: third } });
    expect(again.body.data.version).toBe(3);
    expect(await open(await row(secret.id), binding)).toBe(third);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets/${secret.id}` })).body.data.version).toBe(3);
  });

  it('rejects a PATCH with anything but {value}', async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'x' });
    const res = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: 'y', name: 'renamed' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: '/name', code: 'UNKNOWN_FIELD' }]);
    expect((await row(secret.id)).version).toBe(1);
  });

  it('keeps no plaintext in the database (before and after rotation)', async () => {
    const ns = await newNamespace();
    const first = canary('plain1');
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: first });
    const second = canary('plain2');
    await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: second } });
    const { rows } = await t.database.query('SELECT * FROM secrets');
    const text = JSON.stringify(rows);
    expect(text).toContain(secret.id);
    expect(text).not.toContain(first);
    expect(text).not.toContain(second);
    expect(text).not.toContain(Buffer.from(second).toString('base64'));
    expect(text).not.toContain(Buffer.from(second).toString('hex'));
    const audit = JSON.stringify((await t.database.query('SELECT * FROM audit_events')).rows);
    expect(audit).not.toContain(first);
    expect(audit).not.toContain(second);
  });

  it("refuses to delete a Secret while an Agent's harnessAuth refers to it, then deletes it", async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'pat' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: secret.id },
    });
    const res = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('RESOURCE_CONFLICT');
    expect(res.body.error.details).toEqual([{ path: `/agents/${agent.id}`, code: 'REFERENCED_BY' }]);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets/${secret.id}` })).status).toBe(200);

    // Unbinding (harnessAuth: null) is enough to release it.
    const unbound = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/agents/${agent.id}`, body: { harnessAuth: null } });
    expect(unbound.status).toBe(200);
    expect(unbound.body.data.harnessAuth).toBeNull();
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` })).status).toBe(204);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/secrets/${secret.id}` })).status).toBe(404);
  });

  it("refuses to delete a Secret while a Configuration's secretBindings refers to it, then deletes it", async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'token' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { API_TOKEN: { secretId: secret.id } } });
    const res = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual([{ path: `/configurations/${cfg.id}`, code: 'REFERENCED_BY' }]);

    const cleared = await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${cfg.id}`, body: { secretBindings: {} } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.secretBindings).toEqual({});
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` })).status).toBe(204);
  });

  it('names every referrer when several refer to the Secret, and deletes after the referrers are gone', async () => {
    const ns = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'token' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { A: { secretId: secret.id } } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: secret.id },
    });
    const res = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toHaveLength(2);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: `/agents/${agent.id}`, code: 'REFERENCED_BY' },
        { path: `/configurations/${cfg.id}`, code: 'REFERENCED_BY' },
      ]),
    );
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/agents/${agent.id}` })).status).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/configurations/${cfg.id}` })).status).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` })).status).toBe(204);
  });

  it("binds the sealed value to its Secret: moved to another Secret's row it does not open", async () => {
    const ns = await newNamespace();
    const valueA = canary('aad-a');
    const a = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: valueA });
    const b = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: canary('aad-b') });
    const rowA = await row(a.id);
    expect(await open(rowA, { namespaceId: ns, secretId: a.id })).toBe(valueA);

    await t.database.query('UPDATE secrets SET sealed_value = $1 WHERE id = $2', [rowA.sealed_value, b.id]);
    const moved = await row(b.id);
    expect(moved.sealed_value).toBe(rowA.sealed_value);
    let used = false;
    const attempt = t.controller.deps.secrets.withValue({ driverId: moved.driver_id, sealedValue: moved.sealed_value }, { namespaceId: ns, secretId: b.id }, async (v) => {
      used = true;
      return v;
    });
    await expect(attempt).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    await attempt.catch((error: Error) => expect(error.message).not.toContain(valueA));
    expect(used).toBe(false);

    // The same sealed value under a binding of another Namespace does not open either.
    const other = await newNamespace();
    await expect(open(rowA, { namespaceId: other, secretId: a.id })).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });

  it('answers 404 for a Secret addressed through another Namespace', async () => {
    const nsA = await newNamespace();
    const nsB = await newNamespace();
    const secret = await adminCreate(t, `/namespaces/${nsA}/secrets`, { name: uniqueName('s'), value: 'v' });
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await t.request({ method, url: `/namespaces/${nsB}/secrets/${secret.id}` })).status).toBe(404);
    }
    const patch = await t.request({ method: 'PATCH', url: `/namespaces/${nsB}/secrets/${secret.id}`, body: { value: 'hijack' } });
    expect(patch.status).toBe(404);
    expect((await row(secret.id)).version).toBe(1);
  });
});
