import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, RESOURCE_KINDS } from '@occ/contracts';
import { decide } from '../../src/core/iam/decide.ts';
import type { PrincipalAccess } from '../../src/core/iam/principal-access.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

const ALL = RESOURCE_KINDS.flatMap((resourceKind) => ACTIONS.map((action) => ({ action, resourceKind })));
const API_KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'name', 'prefix', 'principalId', 'revokedAt'];

describe('Identity and access over HTTP', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  /** 403 proves the key authenticated (the principal has no grant for /installation); 401 that it did not. */
  const probe = async (key: string) => (await t.request({ method: 'GET', url: '/installation', key })).status;

  it('shows an API key once: create returns it, list never does, the database holds only its hash', async () => {
    const principal = await adminCreate(t, '/principals', { kind: 'human', name: uniqueName('p') });
    const res = await t.request({ method: 'POST', url: `/principals/${principal.id}/api-keys`, body: { name: 'laptop', expiresInDays: 7 } });
    expect(res.status).toBe(201);
    const { key, apiKey } = res.body.data;
    expect(key).toMatch(/^occ_[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(apiKey).sort()).toEqual(API_KEY_FIELDS);
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect(key.length - apiKey.prefix.length).toBeGreaterThanOrEqual(32);
    expect(apiKey.revokedAt).toBeNull();
    const days = (Date.parse(apiKey.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
    expect(await probe(key)).toBe(403);

    const list = await t.request({ method: 'GET', url: `/principals/${principal.id}/api-keys` });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toHaveLength(1);
    expect(Object.keys(list.body.data.items[0]).sort()).toEqual(API_KEY_FIELDS);
    expect(list.raw).not.toContain(key);

    const { rows } = await t.database.query<{ h: string }>("SELECT encode(key_hash, 'hex') AS h FROM api_keys WHERE id = $1", [apiKey.id]);
    expect(rows[0]!.h).toBe(createHash('sha256').update(key).digest('hex'));
    const table = JSON.stringify((await t.database.query("SELECT *, encode(key_hash, 'escape') AS escaped FROM api_keys")).rows);
    expect(table).not.toContain(key);
    expect(table).not.toContain(key.slice(apiKey.prefix.length));
    expect(t.logs.join('\n')).not.toContain(key);

    const tooLong = await t.request({ method: 'POST', url: `/principals/${principal.id}/api-keys`, body: { name: 'k', expiresInDays: 366 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details).toEqual([{ path: '/expiresInDays', code: 'INVALID_VALUE' }]);
  });

  it('answers 401 for no key, a malformed key and an unknown key', async () => {
    expect((await t.request({ method: 'GET', url: '/installation', key: null })).status).toBe(401);
    expect((await t.request({ method: 'GET', url: '/installation', key: 'not-a-key' })).status).toBe(401);
    const unknown = await t.request({ method: 'GET', url: '/installation', key: `occ_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a revoked key with 401', async () => {
    const p = await newPrincipal(t);
    expect(await probe(p.key)).toBe(403);
    const keys = (await t.request({ method: 'GET', url: `/principals/${p.id}/api-keys` })).body.data.items;
    expect((await t.request({ method: 'DELETE', url: `/principals/${p.id}/api-keys/${keys[0].id}` })).status).toBe(204);
    expect(await probe(p.key)).toBe(401);
    const after = (await t.request({ method: 'GET', url: `/principals/${p.id}/api-keys` })).body.data.items;
    expect(after[0].revokedAt).toEqual(expect.any(String));
    // Another principal's path cannot revoke it.
    const other = await newPrincipal(t);
    const otherKeys = (await t.request({ method: 'GET', url: `/principals/${other.id}/api-keys` })).body.data.items;
    expect((await t.request({ method: 'DELETE', url: `/principals/${p.id}/api-keys/${otherKeys[0].id}` })).status).toBe(404);
    expect(await probe(other.key)).toBe(403);
  });

  it('refuses an expired key with 401', async () => {
    const p = await newPrincipal(t);
    expect(await probe(p.key)).toBe(403);
    await t.database.query("UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE principal_id = $1", [p.id]);
    // Changed behind the API's back (as another replica would): visible within the 1 s
    // authentication cache lifetime.
    const changedAt = Date.now();
    while ((await probe(p.key)) !== 401) {
      expect(Date.now() - changedAt).toBeLessThan(3_000);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it("refuses API keys for an Agent's service principal (409)", async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const res = await t.request({ method: 'POST', url: `/principals/${agent.servicePrincipalId}/api-keys`, body: { name: 'k' } });
    expect(res.status).toBe(409);
    expect(res.raw).not.toMatch(/occ_[A-Za-z0-9_-]{43}/);
    expect((await t.database.query('SELECT id FROM api_keys WHERE principal_id = $1', [agent.servicePrincipalId])).rows).toHaveLength(0);
  });

  it('refuses to let a principal delete itself (409), while another administrator may', async () => {
    const p = await newPrincipal(t, 'human');
    await grant(t, p.id, [{ action: 'administer', resourceKind: 'installation' }], {});
    const self = await t.request({ method: 'DELETE', url: `/principals/${p.id}`, key: p.key });
    expect(self.status).toBe(409);
    expect((await t.request({ method: 'GET', url: `/principals/${p.id}` })).status).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/principals/${p.id}` })).status).toBe(204);
    expect(await probe(p.key)).toBe(401);
  });

  it('refuses to delete a role while it is bound', async () => {
    const p = await newPrincipal(t);
    const role = await adminCreate(t, '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] });
    const binding = await adminCreate(t, '/iam/access-bindings', { principalId: p.id, roleId: role.id });
    const res = await t.request({ method: 'DELETE', url: `/iam/roles/${role.id}` });
    expect(res.status).toBe(409);
    expect((await t.request({ method: 'GET', url: `/iam/roles/${role.id}` })).status).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/iam/access-bindings/${binding.id}` })).status).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/iam/roles/${role.id}` })).status).toBe(204);
    expect((await t.request({ method: 'GET', url: `/iam/roles/${role.id}` })).status).toBe(404);
  });

  it('refuses an exact-resource binding whose role holds create, and a namespaced resource without namespaceId', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const p = await newPrincipal(t);
    const creator = await adminCreate(t, '/iam/roles', {
      name: uniqueName('r'),
      permissions: [
        { action: 'read', resourceKind: 'agent' },
        { action: 'create', resourceKind: 'agent' },
      ],
    });
    const before = (await t.database.query('SELECT id FROM access_bindings WHERE principal_id = $1', [p.id])).rows.length;
    const withCreate = await t.request({
      method: 'POST',
      url: '/iam/access-bindings',
      body: { principalId: p.id, roleId: creator.id, namespaceId: ns, resource: { kind: 'agent', id: agent.id } },
    });
    expect(withCreate.status).toBe(400);
    expect(withCreate.body.error.code).toBe('INVALID_REQUEST');
    expect(withCreate.body.error.details).toEqual([{ path: '/roleId', code: 'INVALID_COMBINATION' }]);

    const reader = await adminCreate(t, '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] });
    const noNs = await t.request({ method: 'POST', url: '/iam/access-bindings', body: { principalId: p.id, roleId: reader.id, resource: { kind: 'agent', id: agent.id } } });
    expect(noNs.status).toBe(400);
    expect(noNs.body.error.details).toEqual([{ path: '/namespaceId', code: 'REQUIRED' }]);
    expect((await t.database.query('SELECT id FROM access_bindings WHERE principal_id = $1', [p.id])).rows.length).toBe(before);

    // The same role, bound correctly, works for that Agent only.
    expect(
      (await t.request({ method: 'POST', url: '/iam/access-bindings', body: { principalId: p.id, roleId: reader.id, namespaceId: ns, resource: { kind: 'agent', id: agent.id } } }))
        .status,
    ).toBe(201);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agent.id}`, key: p.key })).status).toBe(200);
  });

  it('shows a Namespace-scoped principal only its Namespace in GET /namespaces', async () => {
    const mine = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const theirs = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const p = await newPrincipal(t);
    await grant(
      t,
      p.id,
      ALL.filter((x) => x.resourceKind !== 'installation'),
      { namespaceId: mine },
    );
    const res = await t.request({ method: 'GET', url: '/namespaces', key: p.key });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((n: { id: string }) => n.id)).toEqual([mine]);
    expect((await t.request({ method: 'GET', url: `/namespaces/${mine}`, key: p.key })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: `/namespaces/${theirs}`, key: p.key })).status).toBe(404);
    expect((await t.request({ method: 'GET', url: `/namespaces/${theirs}/agents`, key: p.key })).status).toBe(404);
    expect((await t.request({ method: 'POST', url: '/namespaces', key: p.key, body: { name: uniqueName('ns') } })).status).toBe(403);
  });

  it('lets a restriction on (delete, agent) deny a full administrator the delete but not the read', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const p = await newPrincipal(t);
    await grant(t, p.id, ALL, {});
    await adminCreate(t, '/iam/restrictions', { principalId: p.id, action: 'delete', resourceKind: 'agent' });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    expect((await t.request({ method: 'GET', url, key: p.key })).status).toBe(200);
    expect((await t.request({ method: 'PATCH', url, key: p.key, body: { name: uniqueName('a') } })).status).toBe(200);
    const del = await t.request({ method: 'DELETE', url, key: p.key });
    expect(del.status).toBe(403);
    expect(del.body.error).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
    expect((await t.request({ method: 'GET', url })).status).toBe(200);
    // Deleting a Configuration is still allowed: the restriction names one (action, kind).
    const cfg2 = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    expect((await t.request({ method: 'DELETE', url: `/namespaces/${ns}/configurations/${cfg2.id}`, key: p.key })).status).toBe(204);
  });
});

describe('decide: one access decision with evidence', () => {
  const policy: PrincipalAccess = {
    principalId: 'prn_x',
    bindings: [
      { id: 'bind_install', roleId: 'role_reader', namespaceId: null, resource: null, permissions: [{ action: 'read', resourceKind: 'agent' }] },
      {
        id: 'bind_ns',
        roleId: 'role_editor',
        namespaceId: 'ns_a',
        resource: null,
        permissions: [
          { action: 'read', resourceKind: 'agent' },
          { action: 'delete', resourceKind: 'agent' },
          { action: 'create', resourceKind: 'agent' },
        ],
      },
      {
        id: 'bind_exact',
        roleId: 'role_editor',
        namespaceId: 'ns_b',
        resource: { kind: 'agent', id: 'agt_1' },
        permissions: [
          { action: 'delete', resourceKind: 'agent' },
          { action: 'create', resourceKind: 'agent' },
        ],
      },
    ],
    restrictions: [
      { id: 'rst_del_b', action: 'delete', resourceKind: 'agent', namespaceId: 'ns_b', resourceId: null },
      { id: 'rst_other', action: 'read', resourceKind: 'secret', namespaceId: null, resourceId: null },
    ],
  };

  it('grants with the bindings and roles that matched', () => {
    const d = decide(policy, { action: 'read', resource: { kind: 'agent', id: 'agt_9', namespaceId: 'ns_a' } });
    expect(d).toEqual({
      allowed: true,
      reason: 'granted',
      evidence: { principalId: 'prn_x', bindingIds: ['bind_install', 'bind_ns'], roleIds: ['role_reader', 'role_editor'], restrictionIds: [] },
    });
  });

  it('denies with the restrictions that matched', () => {
    const d = decide(policy, { action: 'delete', resource: { kind: 'agent', id: 'agt_1', namespaceId: 'ns_b' } });
    expect(d).toEqual({
      allowed: false,
      reason: 'restricted',
      evidence: { principalId: 'prn_x', bindingIds: ['bind_exact'], roleIds: ['role_editor'], restrictionIds: ['rst_del_b'] },
    });
  });

  it('denies without a matching binding; create never matches an exact-resource binding', () => {
    const other = decide(policy, { action: 'delete', resource: { kind: 'agent', id: 'agt_2', namespaceId: 'ns_c' } });
    expect(other).toMatchObject({ allowed: false, reason: 'no_matching_binding', evidence: { bindingIds: [], roleIds: [], restrictionIds: [] } });
    const create = decide(policy, { action: 'create', resource: { kind: 'agent', namespaceId: 'ns_b' } });
    expect(create).toMatchObject({ allowed: false, reason: 'no_matching_binding' });
    expect(decide(policy, { action: 'create', resource: { kind: 'agent', namespaceId: 'ns_a' } })).toMatchObject({ allowed: true, evidence: { bindingIds: ['bind_ns'] } });
  });
});
