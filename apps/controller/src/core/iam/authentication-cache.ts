import type { AuthenticatedPrincipal } from '../ports/iam-repository.ts';

/**
 * A short-lived cache of authenticated keys and their policies, so a read costs one query
 * instead of two. Bounded staleness, by design:
 * - in this process, every change to access policy (`invalidate`) takes effect at once, and a
 *   read that began before the change cannot re-fill the cache with what it saw (generations);
 * - in another replica, a change takes effect within `ttlMs`;
 * - a key's own expiry is always honoured exactly.
 * The worker never uses it: re-authorization before compute effects always reads the database.
 */
export class AuthenticationCache {
  private readonly entries = new Map<string, { value: AuthenticatedPrincipal; until: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs = 1_000,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.generation;
  }

  get(keyHash: string): AuthenticatedPrincipal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (this.clock() >= entry.until || this.clock() >= entry.value.keyExpiresAt.getTime()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.value;
  }

  set(keyHash: string, value: AuthenticatedPrincipal, generation: number): void {
    if (generation !== this.generation || this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { value, until: this.clock() + this.ttlMs });
  }

  /** Access policy changed (a key, principal, role, binding or restriction): forget everything. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
