import type { PrincipalAccess } from '../iam/principal-access.ts';

/** A live session as the request pipeline sees it (never its token). */
export interface ConsoleSessionRecord {
  id: string;
  principalId: string;
  /** The principal's name now (read with the session): what the console shows, never its id. */
  principalName: string;
  expiresAt: Date;
  /** SHA-256 of the session's CSRF token. */
  csrfHash: Uint8Array;
  /** `console`: a cookie; `cli`: a bearer token (occ login --sso). */
  kind: 'console' | 'cli';
  /** Set for a single sign-on session (docs/sign-in.md); null for one exchanged for an API key. */
  sso: {
    issuer: string;
    /** The provider's refresh and ID tokens, sealed by the SecretDriver. */
    providerTokensSealed: string | null;
    /** When the person's groups are next re-read from the provider. */
    refreshDueAt: Date;
    /** By the database's clock: not yet due; due; due for longer than the grace a refresh under way gets. */
    refresh: 'fresh' | 'due' | 'overdue';
  } | null;
  lastSeenAt: Date;
}

export interface NewSsoSession {
  id: string;
  kind: 'console' | 'cli';
  principalId: string;
  issuer: string;
  tokenHash: Uint8Array;
  csrfHash: Uint8Array;
  providerTokensSealed: string | null;
  ttlSeconds: number;
  refreshIntervalSeconds: number;
}

export interface ConsoleSessionRepository {
  /**
   * Creates a session for the live (unrevoked, unexpired) API key with hash `keyHash`, in one
   * statement, so the key cannot be revoked between the check and the insert. Null: no such key.
   */
  insertForKey(s: { id: string; keyHash: Uint8Array; tokenHash: Uint8Array; csrfHash: Uint8Array; ttlSeconds: number }): Promise<ConsoleSessionRecord | null>;
  insertForIdentity(s: NewSsoSession): Promise<ConsoleSessionRecord>;
  /**
   * One round trip: the live session of that kind (unexpired, used within `idleSeconds`, its key
   * live too), its principal's policy; marks it used (at most once a minute, so reads stay reads).
   */
  authenticate(
    tokenHash: Uint8Array,
    kind: 'console' | 'cli',
    limits: { idleSeconds: number; refreshGraceSeconds: number },
  ): Promise<{ session: ConsoleSessionRecord; policy: PrincipalAccess } | null>;
  /**
   * Takes the session's refresh for `leaseSeconds` when it is due, under the caller's random
   * `claim`: true for exactly one caller. Others go on with the access the last refresh left only
   * within the grace; once the claim lapses (no answer) the next request claims it again.
   */
  claimRefresh(id: string, claim: string, leaseSeconds: number): Promise<boolean>;
  /** After a refresh: the provider's new tokens and the next refresh — only while `claim` still holds it and the session lives. */
  refreshed(id: string, claim: string, providerTokensSealed: string | null, refreshIntervalSeconds: number): Promise<boolean>;
  /** The refresh failed for want of an answer: the next request tries again (only the claim's holder may give it back). */
  releaseRefresh(id: string, claim: string): Promise<void>;
  revoke(id: string): Promise<boolean>;
  /** Ends every single sign-on session (the provider was turned off or replaced). */
  revokeSso(): Promise<number>;
}
