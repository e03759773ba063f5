import type { SignInRefusalReason } from '@occ/contracts';

/**
 * The IdentityProvider port: an OpenID provider as OCC's sign-in uses it (docs/sign-in.md). The
 * driver (drivers/identity/oidc) validates every ID token — signature, issuer, audience, expiry,
 * nonce — before any claim reaches core; a token it refuses is an IdentityRefusal.
 */
export interface IdentityProviderClient {
  issuer: string;
  clientId: string;
  /** The client secret, opened from its Secret for this call only. */
  clientSecret: string;
  redirectUri: string;
  scopes: readonly string[];
}

/** What a grant proved: the ID token's validated claims, and the tokens OCC keeps (sealed) for refresh and sign-out. */
export interface ProviderGrant {
  claims: IdentityClaims;
  refreshToken: string | null;
  idToken: string | null;
}

/** Validated claims; `sub` always present. */
export type IdentityClaims = { sub: string } & Record<string, unknown>;

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  expiresInSeconds: number;
  intervalSeconds: number;
}

/** The provider refused, or what it answered failed validation: never retried, always audited. */
export class IdentityRefusal extends Error {
  constructor(
    readonly reason: SignInRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'IdentityRefusal';
  }
}

/** The provider did not answer (network, 5xx, a discovery document it does not serve). */
export class IdentityProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityProviderUnavailable';
  }
}

/** The provider does not offer what was asked (the device grant): a configuration matter, not an outage. */
export class IdentityProviderUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityProviderUnsupported';
  }
}

export interface IdentityProvider {
  /** Where to send the browser: authorization code flow with PKCE (S256), state and nonce. */
  authorizationUrl(client: IdentityProviderClient, request: { state: string; nonce: string; codeVerifier: string }): Promise<string>;
  /** Exchanges the code of the callback the browser came back with (only its query is read: code, state, iss, error). */
  redeemCode(client: IdentityProviderClient, callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string }): Promise<ProviderGrant>;
  startDevice(client: IdentityProviderClient): Promise<DeviceAuthorization>;
  /** One poll of a device grant: 'pending' while the person has not finished ('slow_down' too: the caller waits longer). */
  pollDevice(client: IdentityProviderClient, deviceCode: string): Promise<ProviderGrant | 'pending' | 'slow_down'>;
  /** Re-reads the person's claims with a refresh token; the grant's own refresh token replaces the old one when it rotates. */
  refresh(client: IdentityProviderClient, refreshToken: string, expectedSubject: string): Promise<ProviderGrant>;
  /** Best effort: the provider forgets the refresh token (sign-out). */
  revoke(client: IdentityProviderClient, refreshToken: string): Promise<void>;
  /** The provider's end-session URL (RP-initiated logout), or null when it has none. */
  signOutUrl(client: IdentityProviderClient, idToken: string | null, postLogoutRedirectUri: string): Promise<string | null>;
}
