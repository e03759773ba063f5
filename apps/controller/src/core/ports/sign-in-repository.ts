import type { SignInProvider } from '@occ/contracts';

/** What PUT /sign-in/provider stores (the client secret is named by its Secret, never held here). */
export interface SignInProviderRecord extends Omit<SignInProvider, 'redirectUri'> {
  clientSecretNamespaceId: string;
}
export type SignInProviderWrite = Omit<SignInProviderRecord, 'updatedAt'>;

/** A sign-in under way (sign_in_attempts), found by the hash of what its client holds. */
export type SignInAttempt =
  | { kind: 'browser'; browserHash: Uint8Array; nonce: string; codeVerifier: string; expiresAt: Date; consumedAt: Date | null }
  | { kind: 'device'; deviceCodeSealed: string; intervalSeconds: number; nextPollAt: Date; expiresAt: Date; consumedAt: Date | null };

export interface SignInRepository {
  getProvider(): Promise<SignInProviderRecord | null>;
  putProvider(p: SignInProviderWrite): Promise<SignInProviderRecord>;
  deleteProvider(): Promise<SignInProviderRecord | null>;

  /** The principal an external identity signed in as before, if any. */
  principalOf(issuer: string, subject: string): Promise<string | null>;
  /** Links the identity to the principal; false when another sign-in linked it first (it then keeps its principal). */
  linkIdentity(issuer: string, subject: string, principalId: string): Promise<boolean>;
  /** Whether the principal is a person single sign-on created (linked to an external identity). */
  identityLinked(principalId: string): Promise<boolean>;
  /** The provider's subject for a principal it signed in (what a refresh must come back for). */
  subjectOf(issuer: string, principalId: string): Promise<string | null>;

  insertAttempt(idHash: Uint8Array, attempt: SignInAttempt): Promise<void>;
  /** Locks the attempt's row for the rest of the transaction (one poll or callback at a time). */
  lockAttempt(idHash: Uint8Array): Promise<SignInAttempt | null>;
  consumeAttempt(idHash: Uint8Array): Promise<void>;
  /** A device grant's next poll may not come before this (slow_down, RFC 8628 §3.5). */
  deferAttempt(idHash: Uint8Array, intervalSeconds: number): Promise<void>;
  /** Forgets attempts expired for more than a day (kept that long so a replay is told it was used). */
  purgeAttempts(): Promise<number>;
}
