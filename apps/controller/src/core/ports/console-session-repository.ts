import type { PrincipalAccess } from '../iam/principal-access.ts';

/** A live console session as the request pipeline sees it (never its token). */
export interface ConsoleSessionRecord {
  id: string;
  principalId: string;
  /** The principal's name now (read with the session): what the console shows, never its id. */
  principalName: string;
  expiresAt: Date;
  /** SHA-256 of the session's CSRF token. */
  csrfHash: Uint8Array;
}

export interface ConsoleSessionRepository {
  /**
   * Creates a session for the live (unrevoked, unexpired) API key with hash `keyHash`, in one
   * statement, so the key cannot be revoked between the check and the insert. Null: no such key.
   */
  insertForKey(s: { id: string; keyHash: Uint8Array; tokenHash: Uint8Array; csrfHash: Uint8Array; ttlSeconds: number }): Promise<ConsoleSessionRecord | null>;
  /** One round trip: the live session (its key live too), its principal's policy. */
  authenticate(tokenHash: Uint8Array): Promise<{ session: ConsoleSessionRecord; policy: PrincipalAccess } | null>;
  revoke(id: string): Promise<boolean>;
}
