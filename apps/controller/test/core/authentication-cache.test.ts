import { describe, expect, it } from 'vitest';
import { AuthenticationCache } from '../../src/core/iam/authentication-cache.ts';
import type { AuthenticatedPrincipal } from '../../src/core/ports/iam-repository.ts';

const entry = (keyExpiresAt: number): AuthenticatedPrincipal => ({
  principal: { id: 'prn_x', kind: 'human', name: 'x', namespaceId: null, agentId: null, createdAt: new Date(0).toISOString() },
  policy: { principalId: 'prn_x', bindings: [], restrictions: [] },
  keyExpiresAt: new Date(keyExpiresAt),
});

describe('AuthenticationCache', () => {
  it('serves an entry for its lifetime, then forgets it', () => {
    let now = 1_000;
    const cache = new AuthenticationCache(500, 10, () => now);
    cache.set('k', entry(10_000), cache.begin());
    expect(cache.get('k')).toBeDefined();
    now += 499;
    expect(cache.get('k')).toBeDefined();
    now += 1;
    expect(cache.get('k')).toBeUndefined();
  });

  it("never serves a key past the key's own expiry", () => {
    let now = 1_000;
    const cache = new AuthenticationCache(60_000, 10, () => now);
    cache.set('k', entry(1_100), cache.begin());
    now = 1_100;
    expect(cache.get('k')).toBeUndefined();
  });

  it('forgets everything on a policy change, and a read begun before the change cannot refill it', () => {
    const cache = new AuthenticationCache(60_000);
    cache.set('a', entry(Date.now() + 60_000), cache.begin());
    const before = cache.begin();
    cache.invalidate();
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', entry(Date.now() + 60_000), before);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', entry(Date.now() + 60_000), cache.begin());
    expect(cache.get('b')).toBeDefined();
  });

  it('is disabled with a zero lifetime and stays bounded', () => {
    const off = new AuthenticationCache(0);
    off.set('k', entry(Date.now() + 60_000), off.begin());
    expect(off.get('k')).toBeUndefined();
    const small = new AuthenticationCache(60_000, 2);
    for (const k of ['a', 'b', 'c']) small.set(k, entry(Date.now() + 60_000), small.begin());
    expect(['a', 'b', 'c'].filter((k) => small.get(k)).length).toBeLessThanOrEqual(2);
  });
});
