import { describe, expect, it } from 'vitest';
import { invalidatingOnAccessChanges } from '../../src/core/iam/access-changes.ts';
import { AuthenticationCache } from '../../src/core/iam/authentication-cache.ts';
import { newId } from '../../src/core/ids.ts';
import type { AuthenticatedPrincipal } from '../../src/core/ports/iam-repository.ts';
import type { StateStore, UnitOfWork } from '../../src/core/ports/state.ts';
import { unique, useStateStore } from '../state/fixtures.ts';

const f = useStateStore();

const entry = (): AuthenticatedPrincipal => ({
  principal: { id: 'prn_x', kind: 'human', name: 'x', namespaceId: null, agentId: null, createdAt: new Date(0).toISOString() },
  policy: { principalId: 'prn_x', bindings: [], restrictions: [] },
  keyExpiresAt: new Date(Date.now() + 60_000),
});

/** A cache holding one entry, and the state use cases get (composition/compose.ts wires it the same way). */
function cached(store: StateStore = f.store) {
  const cache = new AuthenticationCache(60_000);
  cache.set('k', entry(), cache.begin());
  return { cache, state: invalidatingOnAccessChanges(store, cache) };
}

const seed = () =>
  f.store.transact(async (uow) => ({
    principal: await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: unique('p') }),
    role: await uow.iam.insertRole({ id: newId('role'), name: unique('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] }),
  }));

/** The IamRepository methods that change who may do what (core/iam/access-changes.ts classifies every method). */
const ACCESS_CHANGES = [
  'deleteAllSignInBindings',
  'deleteBinding',
  'deleteGrantsOnResource',
  'deletePrincipal',
  'deleteRestriction',
  'deleteRole',
  'deleteSignInRule',
  'insertBinding',
  'insertRestriction',
  'revokeApiKey',
  'syncSignInBindings',
];

describe('the authentication cache forgets on every access change, in one place', () => {
  it('a transaction that binds a role empties it once committed, never before, and a read begun before cannot refill it', async () => {
    const { principal, role } = await seed();
    const { cache, state } = cached();
    let begunBefore = -1;
    await state.transact(async (uow) => {
      await uow.iam.insertBinding({ id: newId('access_binding'), principalId: principal.id, roleId: role.id });
      // Not committed yet: another request may still read the old policy and is served from the cache.
      expect(cache.get('k')).toBeDefined();
      begunBefore = cache.begin();
    });
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', entry(), begunBefore);
    expect(cache.get('k')).toBeUndefined();
  });

  it('reads and additions (a principal, a key, a role) keep it', async () => {
    const { principal } = await seed();
    const { cache, state } = cached();
    await state.transact(async (uow) => {
      await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: unique('q') });
      await uow.iam.insertApiKey({
        id: newId('api_key'),
        principalId: principal.id,
        name: 'k',
        keyHash: new Uint8Array(32).fill(7),
        prefix: 'occ_abcdefgh',
        expiresAt: new Date(Date.now() + 60_000),
      });
      await uow.iam.insertRole({ id: newId('role'), name: unique('r'), permissions: [] });
      await uow.iam.scanBindings({ limit: 10 });
    });
    await state.read((uow) => uow.iam.loadPolicy(principal.id));
    expect(cache.get('k')).toBeDefined();
  });

  it('every method of the IamRepository that changes access empties it, and no other does', async () => {
    const methods = await f.store.read(async (uow) => Object.keys(uow.iam));
    expect(methods).toEqual(expect.arrayContaining(ACCESS_CHANGES));
    const emptied: string[] = [];
    for (const method of methods) {
      const { cache, state } = cached();
      // Each alone, rolled back: what it is called with does not matter (a refused call changed nothing, and forgetting is safe).
      await state
        .transact(async (uow) => {
          await (uow.iam as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!(newId('principal'), newId('api_key')).catch(() => undefined);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      if (cache.get('k') === undefined) emptied.push(method);
    }
    expect(emptied.sort()).toEqual(ACCESS_CHANGES);
  });

  it('a mutation added to the IAM repository later empties it without its use case doing anything', async () => {
    const withNewMutation: StateStore = {
      ...f.store,
      transact: (fn) => f.store.transact((uow) => fn({ ...uow, iam: { ...uow.iam, grantEverything: async () => true } as UnitOfWork['iam'] })),
    };
    const { cache, state } = cached(withNewMutation);
    await state.transact((uow) => (uow.iam as unknown as { grantEverything(): Promise<boolean> }).grantEverything());
    expect(cache.get('k')).toBeUndefined();
  });

  it('a change inside a transaction that then fails empties it too', async () => {
    const { principal, role } = await seed();
    const { cache, state } = cached();
    await expect(
      state.transact(async (uow) => {
        await uow.iam.insertBinding({ id: newId('access_binding'), principalId: principal.id, roleId: role.id });
        throw new Error('a later step failed');
      }),
    ).rejects.toThrow('a later step failed');
    expect(cache.get('k')).toBeUndefined();
  });
});
