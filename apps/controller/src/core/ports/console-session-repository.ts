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
   * One round trip: the live session (unexpired, used within `idleSeconds`, its key live too),
   * its principal's policy; marks it used (at most once a minute, so reads stay reads).
   */
  authenticate(tokenHash: Uint8Array, idleSeconds: number): Promise<{ session: ConsoleSessionRecord; policy: PrincipalAccess } | null>;
  /**
   * Takes the session's refresh for `leaseSeconds` when it is due: true for exactly one caller.
   * The others go on with the access the last refresh left while the claim lasts; once it lapses
   * (the provider did not answer) the next request claims it again, so an unreachable provider
   * cannot keep a session's old groups alive.
   */
  claimRefresh(id: string, leaseSeconds: number): Promise<boolean>;
  /** The refresh failed for want of an answer: the next request tries again. */
  releaseRefresh(id: string): Promise<void>;
  /** After a refresh: the provider's new tokens, and the next refresh. */
  refreshed(id: string, providerTokensSealed: string | null, refreshIntervalSeconds: number): Promise<void>;
  revoke(id: string): Promise<boolean>;
  /** Ends every single sign-on session (the provider was turned off or replaced). */
  revokeSso(): Promise<number>;
}
