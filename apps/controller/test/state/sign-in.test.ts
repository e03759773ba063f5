import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { UnitOfWork } from '../../src/core/ports/state.ts';
import { namespace, secret, unique, useStateStore } from './fixtures.ts';

/**
 * Migration 0013 and the single sign-on repositories, on both engines (the HTTP side and the real
 * provider: test/http/single-sign-on.test.ts): rule-granted bindings, sign-in attempts used once,
 * sessions without an API key, their idle timeout and their one-at-a-time refresh.
 */
describe('state: single sign-on', () => {
  const f = useStateStore();
  const hash = (value: string) => createHash('sha256').update(value).digest();

  /** A role, two rules (Namespace scope), a principal linked to an external identity. */
  async function people(uow: UnitOfWork) {
    const ns = await namespace(uow);
    const role = await uow.iam.insertRole({ id: newId('role'), name: unique('role'), permissions: [{ action: 'read', resourceKind: 'agent' }] });
    const rule = (value: string) => uow.iam.insertSignInRule({ id: newId('sign_in_rule'), claim: 'groups', value, roleId: role.id, namespaceId: ns.id, resource: null });
    const [ruleA, ruleB] = [await rule('a'), await rule('b')];
    const person = await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: unique('person') });
    const issuer = `https://idp.example.test/${unique('realm')}`;
    await uow.signIn.linkIdentity(issuer, 'subject-1', person.id);
    return { ns, role, ruleA, ruleB, person, issuer };
  }

  it('makes the rule-granted bindings exactly the matching rules, leaves hand-made ones alone, and a rule takes its bindings along', async () => {
    const { ns, role, ruleA, ruleB, person, issuer } = await f.store.transact(people);
    const manual = await f.store.transact((uow) => uow.iam.insertBinding({ id: newId('access_binding'), principalId: person.id, roleId: role.id, namespaceId: ns.id }));
    const ruleBindings = async () =>
      (
        await f.db.query<{ r: string }>('SELECT sign_in_rule_id AS r FROM access_bindings WHERE principal_id = $1 AND sign_in_rule_id IS NOT NULL ORDER BY 1', [person.id])
      ).rows.map((x) => x.r);

    expect(await f.store.transact((uow) => uow.iam.syncSignInBindings(person.id, [ruleA.id, ruleB.id]))).toEqual({ granted: [ruleA.id, ruleB.id].sort(), revoked: [] });
    expect(await f.store.transact((uow) => uow.iam.syncSignInBindings(person.id, [ruleA.id, ruleB.id]))).toEqual({ granted: [], revoked: [] });
    expect(await f.store.transact((uow) => uow.iam.syncSignInBindings(person.id, [ruleB.id]))).toEqual({ granted: [], revoked: [ruleA.id] });
    expect(await ruleBindings()).toEqual([ruleB.id]);
    const granted = (await f.store.read((uow) => uow.iam.loadPolicy(person.id))).bindings.map((b) => b.id);
    expect(granted).toContain(manual.id);
    expect(granted).toHaveLength(2);

    expect(await f.store.transact((uow) => uow.iam.deleteSignInRule(ruleB.id))).toBe(true);
    expect(await ruleBindings()).toEqual([]);
    expect((await f.store.read((uow) => uow.iam.getBinding(manual.id)))?.signInRuleId).toBeNull();
    expect(await f.store.read((uow) => uow.signIn.principalOf(issuer, 'subject-1'))).toBe(person.id);
    expect(await f.store.read((uow) => uow.signIn.subjectOf(issuer, person.id))).toBe('subject-1');
    // A role a rule still names cannot be deleted.
    expect(await f.store.read((uow) => uow.iam.roleInUse(role.id))).toBe(true);
  });

  it("two sessions of one person refreshing at once grant a rule's binding once, without an error", async () => {
    const { ruleA, person } = await f.store.transact(people);
    const results = await Promise.all([1, 2, 3].map(() => f.store.transact((uow) => uow.iam.syncSignInBindings(person.id, [ruleA.id]))));
    expect(results.length).toBe(3);
    expect((await f.db.query('SELECT 1 FROM access_bindings WHERE principal_id = $1 AND sign_in_rule_id = $2', [person.id, ruleA.id])).rows.length).toBe(1);
  });

  it('keeps a sign-in attempt until it is used, once; a deferred device poll waits its interval', async () => {
    const browser = hash(`state-${randomBytes(8).toString('hex')}`);
    const device = hash(`device-${randomBytes(8).toString('hex')}`);
    const expiresAt = new Date(Date.now() + 600_000);
    await f.store.transact(async (uow) => {
      await uow.signIn.insertAttempt(browser, { kind: 'browser', browserHash: hash('b'), nonce: 'n', codeVerifier: 'v', expiresAt, consumedAt: null });
      await uow.signIn.insertAttempt(device, { kind: 'device', deviceCodeSealed: 'sealed', intervalSeconds: 5, nextPollAt: new Date(), expiresAt, consumedAt: null });
    });
    const found = await f.store.transact((uow) => uow.signIn.lockAttempt(browser));
    expect(found).toMatchObject({ kind: 'browser', nonce: 'n', codeVerifier: 'v', consumedAt: null });
    await f.store.transact((uow) => uow.signIn.consumeAttempt(browser));
    expect((await f.store.transact((uow) => uow.signIn.lockAttempt(browser)))?.consumedAt).toBeInstanceOf(Date);
    expect(await f.store.transact((uow) => uow.signIn.lockAttempt(hash('never')))).toBeNull();

    await f.store.transact((uow) => uow.signIn.deferAttempt(device, 10));
    const deferred = await f.store.transact((uow) => uow.signIn.lockAttempt(device));
    expect(deferred).toMatchObject({ kind: 'device', intervalSeconds: 10 });
    expect(deferred?.kind === 'device' && deferred.nextPollAt.getTime()).toBeGreaterThan(Date.now() + 8_000);
  });

  it('a single sign-on session: no API key, idle after its idle time, refreshed by one caller at a time, gone with its provider', async () => {
    const { person, issuer } = await f.store.transact(people);
    const sec = await f.store.transact(async (uow) => secret(uow, (await namespace(uow)).id));
    await f.store.transact((uow) =>
      uow.signIn.putProvider({
        issuer,
        clientId: 'occ',
        clientSecretNamespaceId: sec.namespaceId,
        clientSecretId: sec.id,
        publicUrl: 'https://occ.example.test',
        scopes: ['openid'],
        groupsClaim: 'groups',
        refreshIntervalSeconds: 300,
      }),
    );
    const token = randomBytes(32).toString('base64url');
    const id = newId('console_session');
    const created = await f.store.transact((uow) =>
      uow.sessions.insertForIdentity({
        id,
        kind: 'cli',
        principalId: person.id,
        issuer,
        tokenHash: hash(token),
        csrfHash: hash('csrf'),
        providerTokensSealed: 'sealed-tokens',
        ttlSeconds: 3600,
        refreshIntervalSeconds: 300,
      }),
    );
    expect(created).toMatchObject({ id, kind: 'cli', principalId: person.id, sso: { issuer, providerTokensSealed: 'sealed-tokens' } });
    const limits = { idleSeconds: 3600, refreshGraceSeconds: 30 };
    const authenticate = () => f.store.read((uow) => uow.sessions.authenticate(hash(token), 'cli', limits));
    const live = await authenticate();
    expect(live?.session.id).toBe(id);
    expect(live?.session.sso?.refresh).toBe('fresh');
    // A CLI session's token is no console session's.
    expect(await f.store.read((uow) => uow.sessions.authenticate(hash(token), 'console', limits))).toBeNull();

    // Not due: nobody refreshes. Due: exactly one claim; only its holder gives it back or stores the result.
    expect(await f.store.transact((uow) => uow.sessions.claimRefresh(id, 'c0', 30))).toBe(false);
    await f.db.query('UPDATE console_sessions SET refresh_due_at = now() WHERE id = $1', [id]);
    expect((await authenticate())?.session.sso?.refresh).toBe('due');
    const claims = await Promise.all(['c1', 'c2', 'c3'].map((c) => f.store.transact((uow) => uow.sessions.claimRefresh(id, c, 30))));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const holder = ['c1', 'c2', 'c3'][claims.indexOf(true)]!;
    await f.store.transact((uow) => uow.sessions.releaseRefresh(id, 'not-the-holder'));
    expect(await f.store.transact((uow) => uow.sessions.claimRefresh(id, 'c4', 30))).toBe(false);
    expect(await f.store.transact((uow) => uow.sessions.refreshed(id, 'not-the-holder', 'sealed-x', 300))).toBe(false);
    await f.store.transact((uow) => uow.sessions.releaseRefresh(id, holder));
    expect(await f.store.transact((uow) => uow.sessions.claimRefresh(id, 'c5', 30))).toBe(true);
    expect(await f.store.transact((uow) => uow.sessions.refreshed(id, 'c5', 'sealed-2', 300))).toBe(true);
    const after = await authenticate();
    expect(after?.session.sso?.providerTokensSealed).toBe('sealed-2');
    expect(after?.session.sso?.refresh).toBe('fresh');
    expect(after!.session.sso!.refreshDueAt.getTime()).toBeGreaterThan(Date.now() + 200_000);
    // Due for longer than the grace: overdue.
    await f.db.query("UPDATE console_sessions SET refresh_due_at = now() - interval '31 seconds' WHERE id = $1", [id]);
    expect((await authenticate())?.session.sso?.refresh).toBe('overdue');

    await f.db.query("UPDATE console_sessions SET last_seen_at = now() - interval '2 hours' WHERE id = $1", [id]);
    expect(await authenticate()).toBeNull();
    await f.db.query('UPDATE console_sessions SET last_seen_at = now() WHERE id = $1', [id]);
    expect(await authenticate()).not.toBeNull();

    await f.store.transact((uow) => uow.signIn.deleteProvider());
    expect(await authenticate()).toBeNull();
  });
});
