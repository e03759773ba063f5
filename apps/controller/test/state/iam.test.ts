import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Permission } from '@occ/contracts';
import { newId } from '../../src/core/ids.ts';
import type { UnitOfWork } from '../../src/core/ports/state.ts';
import { ISO, agent, configuration, expectOccError, namespace, secret, unique, useStateStore } from './fixtures.ts';

const f = useStateStore();
const READ_SECRET: Permission[] = [{ action: 'read', resourceKind: 'secret' }];

const principal = (uow: UnitOfWork) => uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: unique('alice') });
const role = (uow: UnitOfWork, permissions = READ_SECRET, name = unique('role')) => uow.iam.insertRole({ id: newId('role'), name, permissions });
const key = (uow: UnitOfWork, principalId: string, expiresAt = new Date(Date.now() + 86_400_000)) => {
  const keyHash = new Uint8Array(randomBytes(32));
  return uow.iam.insertApiKey({ id: newId('api_key'), principalId, name: 'k', keyHash, prefix: 'occ_abcdefgh', expiresAt }).then((apiKey) => ({ apiKey, keyHash }));
};

describe('IamRepository: principals and API keys', () => {
  it('inserts, gets, scans and deletes principals', async () => {
    const p = await f.store.transact(principal);
    expect(p).toEqual({ id: expect.stringMatching(/^prn_/), kind: 'human', name: p.name, namespaceId: null, agentId: null, createdAt: expect.stringMatching(ISO) });
    expect(await f.store.read((uow) => uow.iam.getPrincipal(p.id))).toEqual(p);
    const all = await f.store.read((uow) => uow.iam.scanPrincipals({ limit: 1000 }));
    expect(all.map((x) => x.id)).toContain(p.id);
    expect(await f.store.transact((uow) => uow.iam.deletePrincipal(p.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.iam.deletePrincipal(p.id))).toBe(false);
    expect(await f.store.read((uow) => uow.iam.getPrincipal(p.id))).toBeNull();
  });

  it("refuses a principal in a missing Namespace and the deletion of a live Agent's principal", async () => {
    await expectOccError(
      f.store.transact((uow) => uow.iam.insertPrincipal({ id: newId('principal'), kind: 'service', name: 's', namespaceId: newId('namespace'), agentId: newId('agent') })),
      'NOT_FOUND',
    );
    const agt = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      return agent(uow, ns.id, (await configuration(uow, ns.id)).id);
    });
    const sp = await f.store.read((uow) => uow.iam.getPrincipal(agt.servicePrincipalId));
    expect(sp).toMatchObject({ kind: 'service', namespaceId: agt.namespaceId, agentId: agt.id });
    await expectOccError(
      f.store.transact((uow) => uow.iam.deletePrincipal(agt.servicePrincipalId)),
      'RESOURCE_CONFLICT',
    );
  });

  it('stores keys without their hash, lists them per principal and revokes once', async () => {
    const p = await f.store.transact(principal);
    const other = await f.store.transact(principal);
    const { apiKey } = await f.store.transact((uow) => key(uow, p.id, new Date('2031-01-02T03:04:05.678Z')));
    expect(apiKey).toEqual({
      id: expect.stringMatching(/^key_/),
      principalId: p.id,
      name: 'k',
      prefix: 'occ_abcdefgh',
      expiresAt: '2031-01-02T03:04:05.678Z',
      revokedAt: null,
      createdAt: expect.stringMatching(ISO),
    });
    expect(await f.store.read((uow) => uow.iam.scanApiKeys(p.id, { limit: 10 }))).toEqual([apiKey]);
    expect(await f.store.read((uow) => uow.iam.scanApiKeys(other.id, { limit: 10 }))).toEqual([]);
    expect(await f.store.transact((uow) => uow.iam.revokeApiKey(other.id, apiKey.id))).toBe(false);
    expect(await f.store.transact((uow) => uow.iam.revokeApiKey(p.id, apiKey.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.iam.revokeApiKey(p.id, apiKey.id))).toBe(false);
    const [revoked] = await f.store.read((uow) => uow.iam.scanApiKeys(p.id, { limit: 10 }));
    expect(revoked!.revokedAt).toMatch(ISO);
  });
});

describe('IamRepository: authenticate and loadPolicy', () => {
  it('returns the principal with its bindings, permissions and the restrictions on it or on everyone', async () => {
    const setup = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const s = await secret(uow, ns.id);
      const p = await principal(uow);
      const stranger = await principal(uow);
      const r = await role(uow);
      const wide = await uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: r.id });
      const exact = await uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: r.id, namespaceId: ns.id, resource: { kind: 'secret', id: s.id } });
      await uow.iam.insertBinding({ id: newId('access_binding'), principalId: stranger.id, roleId: r.id });
      const own = await uow.iam.insertRestriction({ id: newId('restriction'), principalId: p.id, action: 'read', resourceKind: 'secret', namespaceId: ns.id, resourceId: s.id });
      const everyone = await uow.iam.insertRestriction({ id: newId('restriction'), action: 'delete', resourceKind: 'namespace' });
      await uow.iam.insertRestriction({ id: newId('restriction'), principalId: stranger.id, action: 'read', resourceKind: 'agent' });
      return { ns, s, p, r, wide, exact, own, everyone, ...(await key(uow, p.id)) };
    });
    const found = await f.store.read((uow) => uow.iam.authenticate(setup.keyHash));
    expect(found?.principal).toEqual(setup.p);
    const policy = found!.policy;
    expect(policy.principalId).toBe(setup.p.id);
    expect(policy.bindings).toHaveLength(2);
    expect(policy.bindings).toEqual(
      expect.arrayContaining([
        { id: setup.wide.id, roleId: setup.r.id, namespaceId: null, resource: null, permissions: READ_SECRET },
        { id: setup.exact.id, roleId: setup.r.id, namespaceId: setup.ns.id, resource: { kind: 'secret', id: setup.s.id }, permissions: READ_SECRET },
      ]),
    );
    const restrictionIds = policy.restrictions.map((x) => x.id);
    expect(restrictionIds).toEqual(expect.arrayContaining([setup.own.id, setup.everyone.id]));
    expect(policy.restrictions.find((x) => x.id === setup.own.id)).toEqual({
      id: setup.own.id,
      action: 'read',
      resourceKind: 'secret',
      namespaceId: setup.ns.id,
      resourceId: setup.s.id,
    });
    const everyoneElse = await f.store.read((uow) => uow.iam.scanRestrictions({ limit: 1000 }));
    const expected = everyoneElse
      .filter((x) => x.principalId === null || x.principalId === setup.p.id)
      .map((x) => x.id)
      .sort();
    expect([...restrictionIds].sort()).toEqual(expected);

    expect(await f.store.read((uow) => uow.iam.loadPolicy(setup.p.id))).toEqual(policy);
    expect(await f.store.read((uow) => uow.iam.authenticate(new Uint8Array(randomBytes(32))))).toBeNull();
  });

  it('ignores revoked and expired keys', async () => {
    const p = await f.store.transact(principal);
    const revoked = await f.store.transact((uow) => key(uow, p.id));
    const expired = await f.store.transact((uow) => key(uow, p.id, new Date(Date.now() - 1000)));
    expect(await f.store.read((uow) => uow.iam.authenticate(revoked.keyHash))).not.toBeNull();
    await f.store.transact((uow) => uow.iam.revokeApiKey(p.id, revoked.apiKey.id));
    expect(await f.store.read((uow) => uow.iam.authenticate(revoked.keyHash))).toBeNull();
    expect(await f.store.read((uow) => uow.iam.authenticate(expired.keyHash))).toBeNull();
  });

  it('loads an empty binding list for a principal without bindings', async () => {
    const p = await f.store.transact(principal);
    const policy = await f.store.read((uow) => uow.iam.loadPolicy(p.id));
    expect(policy.principalId).toBe(p.id);
    expect(policy.bindings).toEqual([]);
    expect(policy.restrictions.every((x) => x.id.startsWith('rst_'))).toBe(true);
  });
});

describe('IamRepository: roles, bindings and restrictions', () => {
  it('inserts roles, refuses a duplicate name, and finds them by id and name', async () => {
    const name = unique('viewer');
    const r = await f.store.transact((uow) => role(uow, READ_SECRET, name));
    expect(r).toEqual({ id: expect.stringMatching(/^role_/), name, permissions: READ_SECRET, createdAt: expect.stringMatching(ISO) });
    const error = await expectOccError(
      f.store.transact((uow) => role(uow, READ_SECRET, name)),
      'RESOURCE_CONFLICT',
    );
    expect(error.message).toBe('A Role with this name already exists.');
    expect(await f.store.read((uow) => uow.iam.getRole(r.id))).toEqual(r);
    expect(await f.store.read((uow) => uow.iam.findRoleByName(name))).toEqual(r);
    expect(await f.store.read((uow) => uow.iam.findRoleByName(unique('none')))).toBeNull();
    expect((await f.store.read((uow) => uow.iam.scanRoles({ limit: 1000 }))).map((x) => x.id)).toContain(r.id);
  });

  it('keeps a bound role: roleInUse, and delete refused until the binding goes', async () => {
    const { r, b } = await f.store.transact(async (uow) => {
      const r = await role(uow);
      return { r, b: await uow.iam.insertBinding({ id: newId('access_binding'), principalId: (await principal(uow)).id, roleId: r.id }) };
    });
    expect(await f.store.read((uow) => uow.iam.roleInUse(r.id))).toBe(true);
    await expectOccError(
      f.store.transact((uow) => uow.iam.deleteRole(r.id)),
      'RESOURCE_CONFLICT',
    );
    expect(await f.store.read((uow) => uow.iam.getBinding(b.id))).toEqual(b);
    expect(await f.store.transact((uow) => uow.iam.deleteBinding(b.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.iam.deleteBinding(b.id))).toBe(false);
    expect(await f.store.read((uow) => uow.iam.roleInUse(r.id))).toBe(false);
    expect(await f.store.transact((uow) => uow.iam.deleteRole(r.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.iam.deleteRole(r.id))).toBe(false);
  });

  it('maps binding scopes and refuses a missing Namespace', async () => {
    const { p, r, ns } = await f.store.transact(async (uow) => ({ p: await principal(uow), r: await role(uow), ns: await namespace(uow) }));
    const nsBinding = await f.store.transact((uow) => uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: r.id, namespaceId: ns.id }));
    expect(nsBinding).toEqual({
      id: expect.stringMatching(/^bind_/),
      principalId: p.id,
      roleId: r.id,
      namespaceId: ns.id,
      resource: null,
      signInRuleId: null,
      createdAt: expect.stringMatching(ISO),
    });
    expect((await f.store.read((uow) => uow.iam.scanBindings({ limit: 1000 }))).map((x) => x.id)).toContain(nsBinding.id);
    await expectOccError(
      f.store.transact((uow) => uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: r.id, namespaceId: newId('namespace') })),
      'NOT_FOUND',
    );
    await expectOccError(
      f.store.transact((uow) => uow.iam.insertRestriction({ id: newId('restriction'), action: 'read', resourceKind: 'agent', namespaceId: newId('namespace') })),
      'NOT_FOUND',
    );
  });

  it('deleteGrantsOnResource removes the bindings and restrictions naming that resource only', async () => {
    const s = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const sec = await secret(uow, ns.id);
      const keep = await secret(uow, ns.id);
      const p = await principal(uow);
      const r = await role(uow);
      const bind = (id: string) => uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: r.id, namespaceId: ns.id, resource: { kind: 'secret', id } });
      const rst = (resourceId: string) => uow.iam.insertRestriction({ id: newId('restriction'), action: 'read', resourceKind: 'secret', namespaceId: ns.id, resourceId });
      return { sec, gone: [await bind(sec.id), await bind(sec.id)], kept: await bind(keep.id), rGone: await rst(sec.id), rKept: await rst(keep.id) };
    });
    const removed = await f.store.transact((uow) => uow.iam.deleteGrantsOnResource('secret', s.sec.id));
    expect(removed).toEqual(s.gone.map((b) => b.id).sort());
    expect(await f.store.read((uow) => uow.iam.getBinding(s.gone[0]!.id))).toBeNull();
    expect(await f.store.read((uow) => uow.iam.getBinding(s.kept.id))).toEqual(s.kept);
    expect(await f.store.read((uow) => uow.iam.getRestriction(s.rGone.id))).toBeNull();
    expect(await f.store.read((uow) => uow.iam.getRestriction(s.rKept.id))).toEqual(s.rKept);
    expect(await f.store.transact((uow) => uow.iam.deleteGrantsOnResource('secret', s.sec.id))).toEqual([]);
  });

  it('restrictions: insert, get, scan, delete', async () => {
    const p = await f.store.transact(principal);
    const x = await f.store.transact((uow) => uow.iam.insertRestriction({ id: newId('restriction'), principalId: p.id, action: 'deploy', resourceKind: 'agent' }));
    expect(x).toEqual({
      id: expect.stringMatching(/^rst_/),
      principalId: p.id,
      action: 'deploy',
      resourceKind: 'agent',
      namespaceId: null,
      resourceId: null,
      createdAt: expect.stringMatching(ISO),
    });
    expect(await f.store.read((uow) => uow.iam.getRestriction(x.id))).toEqual(x);
    expect((await f.store.read((uow) => uow.iam.scanRestrictions({ limit: 1000 }))).map((r) => r.id)).toContain(x.id);
    expect(await f.store.transact((uow) => uow.iam.deleteRestriction(x.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.iam.deleteRestriction(x.id))).toBe(false);
  });

  it('deleting a principal cascades to its keys, bindings and restrictions', async () => {
    const s = await f.store.transact(async (uow) => {
      const p = await principal(uow);
      const b = await uow.iam.insertBinding({ id: newId('access_binding'), principalId: p.id, roleId: (await role(uow)).id });
      const x = await uow.iam.insertRestriction({ id: newId('restriction'), principalId: p.id, action: 'read', resourceKind: 'agent' });
      return { p, b, x, ...(await key(uow, p.id)) };
    });
    expect(await f.store.transact((uow) => uow.iam.deletePrincipal(s.p.id))).toBe(true);
    expect(await f.store.read((uow) => uow.iam.getBinding(s.b.id))).toBeNull();
    expect(await f.store.read((uow) => uow.iam.getRestriction(s.x.id))).toBeNull();
    expect(await f.store.read((uow) => uow.iam.scanApiKeys(s.p.id, { limit: 10 }))).toEqual([]);
    expect(await f.store.read((uow) => uow.iam.authenticate(s.keyHash))).toBeNull();
  });
});
