import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import { StateError } from '../../src/state/errors.ts';
import { ISO, agent, configuration, expectOccError, namespace, secret, unique, useStateStore } from './fixtures.ts';

const f = useStateStore();

describe('NamespaceRepository', () => {
  it('inserts, gets and maps a Namespace', async () => {
    const name = unique('ns');
    const ns = await f.store.transact((uow) => namespace(uow, name));
    expect(ns).toEqual({ id: expect.stringMatching(/^ns_/), name, createdAt: expect.stringMatching(ISO) });
    expect(await f.store.read((uow) => uow.namespaces.get(ns.id))).toEqual(ns);
    expect(await f.store.read((uow) => uow.namespaces.get(newId('namespace')))).toBeNull();
  });

  it('refuses a duplicate name with a conflict that repeats no value', async () => {
    const name = unique('dup');
    await f.store.transact((uow) => namespace(uow, name));
    const error = await expectOccError(
      f.store.transact((uow) => namespace(uow, name)),
      'RESOURCE_CONFLICT',
    );
    expect(error.message).toBe('A Namespace with this name already exists.');
    expect(error.details).toEqual([{ path: '/name', code: 'DUPLICATE_VALUE' }]);
    expect(JSON.stringify({ m: error.message, d: error.details, s: error.stack })).not.toContain(name);
  });

  it('scans in bytewise id order after an exclusive bound', async () => {
    await f.store.transact(async (uow) => {
      for (let i = 0; i < 4; i++) await namespace(uow);
    });
    const all = await f.store.read((uow) => uow.namespaces.scan({ limit: 1000 }));
    const ids = all.map((n) => n.id);
    expect(ids).toEqual([...ids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
    const first = await f.store.read((uow) => uow.namespaces.scan({ limit: 2 }));
    expect(first.map((n) => n.id)).toEqual(ids.slice(0, 2));
    const next = await f.store.read((uow) => uow.namespaces.scan({ after: first[1]!.id, limit: 2 }));
    expect(next.map((n) => n.id)).toEqual(ids.slice(2, 4));
  });

  it('lists what remains with plural kinds, then deletes only when empty', async () => {
    const { ns, sec, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const sec = await secret(uow, ns.id);
      const cfg = await configuration(uow, ns.id);
      const agt = await agent(uow, ns.id, cfg.id);
      return { ns, sec, cfg, agt };
    });
    const remaining = await f.store.read((uow) => uow.namespaces.remaining(ns.id, 10));
    expect(remaining).toEqual([
      { kind: 'agents', id: agt.id },
      { kind: 'configurations', id: cfg.id },
      { kind: 'secrets', id: sec.id },
    ]);
    expect(await f.store.read((uow) => uow.namespaces.remaining(ns.id, 2))).toHaveLength(2);
    await expectOccError(
      f.store.transact((uow) => uow.namespaces.delete(ns.id)),
      'NAMESPACE_NOT_EMPTY',
    );

    await f.store.transact(async (uow) => {
      await uow.agents.delete(ns.id, agt.id);
      await uow.iam.deletePrincipal(agt.servicePrincipalId);
      await uow.configurations.delete(ns.id, cfg.id);
      await uow.secrets.delete(ns.id, sec.id);
    });
    expect(await f.store.read((uow) => uow.namespaces.remaining(ns.id, 10))).toEqual([]);
    expect(await f.store.transact((uow) => uow.namespaces.delete(ns.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.namespaces.delete(ns.id))).toBe(false);
  });
});

describe('SecretRepository', () => {
  it('inserts a Secret at version 1 and keeps the sealed value server-side', async () => {
    const ns = await f.store.transact((uow) => namespace(uow));
    const s = await f.store.transact((uow) => secret(uow, ns.id, 'token', 'sealed:abc'));
    expect(s).toEqual({
      id: expect.stringMatching(/^sec_/),
      namespaceId: ns.id,
      name: 'token',
      version: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      driverId: 'local',
      sealedValue: 'sealed:abc',
    });
    expect(await f.store.read((uow) => uow.secrets.get(ns.id, s.id))).toEqual(s);
  });

  it('keeps names unique per Namespace only', async () => {
    const [a, b] = await f.store.transact(async (uow) => [await namespace(uow), await namespace(uow)]);
    await f.store.transact((uow) => secret(uow, a!.id, 'same'));
    await f.store.transact((uow) => secret(uow, b!.id, 'same'));
    const error = await expectOccError(
      f.store.transact((uow) => secret(uow, a!.id, 'same', 'sealed:never-echoed')),
      'RESOURCE_CONFLICT',
    );
    expect(error.message).toBe('A Secret with this name already exists.');
    expect(JSON.stringify(error.details) + error.message).not.toContain('never-echoed');
  });

  it('answers NOT_FOUND for a missing Namespace without echoing parameters', async () => {
    const error = await expectOccError(
      f.store.transact((uow) => secret(uow, newId('namespace'), 'x', 'sealed:leak-me')),
      'NOT_FOUND',
    );
    expect(error.message).toBe('Namespace not found.');
    expect(`${error.message}${error.stack}`).not.toContain('leak-me');
  });

  it('finds a Secret only in its own Namespace, and tells where it lives', async () => {
    const [a, b] = await f.store.transact(async (uow) => [await namespace(uow), await namespace(uow)]);
    const s = await f.store.transact((uow) => secret(uow, a!.id));
    expect(await f.store.read((uow) => uow.secrets.get(b!.id, s.id))).toBeNull();
    expect(await f.store.read((uow) => uow.secrets.namespaceOf(s.id))).toBe(a!.id);
    expect(await f.store.read((uow) => uow.secrets.namespaceOf(newId('secret')))).toBeNull();
    const listed = await f.store.read((uow) => uow.secrets.scan(a!.id, { limit: 10 }));
    expect(listed.map((x) => x.id)).toEqual([s.id]);
    expect(await f.store.read((uow) => uow.secrets.scan(a!.id, { after: s.id, limit: 10 }))).toEqual([]);
  });

  it('rotates: new sealed value, version + 1, later updatedAt', async () => {
    const ns = await f.store.transact((uow) => namespace(uow));
    const s = await f.store.transact((uow) => secret(uow, ns.id));
    const rotated = await f.store.transact((uow) => uow.secrets.rotate(ns.id, s.id, 'sealed:v2'));
    expect(rotated).toMatchObject({ id: s.id, version: 2, sealedValue: 'sealed:v2', createdAt: s.createdAt });
    expect(Date.parse(rotated!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(s.updatedAt));
    expect(await f.store.transact((uow) => uow.secrets.rotate(ns.id, newId('secret'), 'x'))).toBeNull();
  });

  it('reports referrers (Agents by harness auth, Configurations by binding) and refuses to delete while referred to', async () => {
    const { ns, s, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const s = await secret(uow, ns.id);
      const cfg = await configuration(uow, ns.id, { API_KEY: { secretId: s.id }, OTHER: { secretId: s.id } });
      const agt = await agent(uow, ns.id, cfg.id, { secretId: s.id });
      return { ns, s, cfg, agt };
    });
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, s.id, 10))).toEqual([
      { kind: 'agents', id: agt.id },
      { kind: 'configurations', id: cfg.id },
    ]);
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, s.id, 1))).toHaveLength(1);
    await expectOccError(
      f.store.transact((uow) => uow.secrets.delete(ns.id, s.id)),
      'RESOURCE_CONFLICT',
    );
    await f.store.transact(async (uow) => {
      await uow.agents.delete(ns.id, agt.id);
      await uow.configurations.delete(ns.id, cfg.id);
    });
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, s.id, 10))).toEqual([]);
    expect(await f.store.transact((uow) => uow.secrets.delete(ns.id, s.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.secrets.delete(ns.id, s.id))).toBe(false);
  });

  it('turns other database failures into a StateError that carries no statement or value', async () => {
    const ns = await f.store.transact((uow) => namespace(uow));
    const id = newId('secret');
    await f.store.transact((uow) => uow.secrets.insert({ id, namespaceId: ns.id, name: 'one', driverId: 'local', sealedValue: 'x' }));
    const error = await f.store
      .transact((uow) => uow.secrets.insert({ id, namespaceId: ns.id, name: 'two', driverId: 'local', sealedValue: 'sealed:secret-text' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).sqlState).toBe('23505');
    expect(Object.keys(error as object)).not.toContain('params');
    expect(JSON.stringify(error) + (error as Error).message).not.toMatch(/secret-text|INSERT|sec_/);
  });
});
