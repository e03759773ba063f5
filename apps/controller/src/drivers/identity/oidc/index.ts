import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { SignInRefusalReason } from '@occ/contracts';
import {
  IdentityProviderUnavailable,
  IdentityProviderUnsupported,
  IdentityRefusal,
  type IdentityClaims,
  type IdentityProvider,
  type IdentityProviderClient,
  type ProviderGrant,
} from '../../../core/ports/identity-provider.ts';
import { isLoopbackIssuer } from '../../../core/iam/sign-in-urls.ts';

/** A provider's discovery document and keys are re-read at most this often (key rotation shows within it). */
const CONFIGURATION_TTL_MS = 5 * 60_000;
/** Each call to the provider gives up after this (seconds): a refresh's few calls fit in its 30 s claim. */
const PROVIDER_TIMEOUT_SECONDS = 8;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface CachedConfiguration {
  configuration: oidc.Configuration;
  expiresAt: number;
}

// The reason alone: core words every refusal (use-cases/sign-in.ts), so the text lives there once.
const refusal = (reason: SignInRefusalReason) => new IdentityRefusal(reason, `sign-in refused: ${reason}`);

/** The chain of causes of an error (openid-client wraps oauth4webapi's errors). */
function* causes(error: unknown): Generator<Record<string, unknown>> {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e as Record<string, unknown>;
}

/**
 * What an openid-client failure means for a sign-in. Validation failures are refusals (never
 * retried); an OAuth error body is the provider's answer; anything else (no answer, a 5xx, a page
 * that is not JSON) is the provider being unavailable.
 */
function classify(error: unknown, onOAuthError: (code: string) => SignInRefusalReason = () => 'provider_error'): Error {
  for (const e of causes(error)) {
    const code = e.code;
    if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') return refusal('token_expired');
    if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED') {
      // The claim is named at the bottom of the chain (oauth4webapi's own cause).
      const claim = [...causes(e)].map((c) => c.claim).find((c) => c !== undefined);
      if (claim === 'aud' || claim === 'azp') return refusal('audience_mismatch');
      if (claim === 'nonce') return refusal('nonce_mismatch');
      if (claim === 'iss') return refusal('issuer_mismatch');
      return refusal('token_invalid');
    }
    if (code === 'OAUTH_INVALID_RESPONSE' || code === 'OAUTH_KEY_SELECTION_FAILED' || code === 'OAUTH_PARSE_ERROR' || code === 'OAUTH_UNSUPPORTED_OPERATION')
      return refusal('token_invalid');
    if (code === 'OAUTH_RESPONSE_BODY_ERROR' || code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR') {
      const status = typeof e.status === 'number' ? e.status : 400;
      if (status >= 500) break;
      // OCC's own client refused is a configuration fault: nobody's sign-in (or session) is at fault.
      if (e.error === 'invalid_client' || e.error === 'unauthorized_client') return clientRefused();
      return refusal(onOAuthError(String(e.error ?? '')));
    }
  }
  return new IdentityProviderUnavailable('The identity provider did not answer as expected; try again shortly.');
}

const clientRefused = () => new IdentityProviderUnavailable("The identity provider refused OCC's client (its id or secret): an administrator must correct the sign-in provider.");

const oauthError = (error: unknown): string | null => {
  for (const e of causes(error)) if (e.code === 'OAUTH_RESPONSE_BODY_ERROR') return String(e.error ?? '');
  return null;
};

/**
 * The ID token's validated claims, issued by exactly the configured provider: openid-client
 * skips its issuer check for some issuers (Microsoft's multi-tenant endpoints), so it is made here.
 */
function claimsOf(configuration: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): IdentityClaims {
  const claims = tokens.claims();
  if (!claims || typeof claims.sub !== 'string') throw refusal('token_invalid');
  if (claims.iss !== configuration.serverMetadata().issuer) throw refusal('issuer_mismatch');
  return claims as IdentityClaims;
}

const grantOf = (tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, claims: IdentityClaims): ProviderGrant => ({
  claims,
  refreshToken: tokens.refresh_token ?? null,
  idToken: tokens.id_token ?? null,
});

/**
 * The IdentityProvider port on openid-client (an OpenID Certified relying party). ID tokens are
 * checked in full — signature against the provider's published keys (non-repudiation checks on,
 * so a token altered in transit is refused even over TLS), issuer, audience, expiry, nonce.
 * Plain http is allowed only to a loopback issuer (docs/sign-in.md).
 */
export function createOidcIdentityProvider(options: { fetch?: typeof fetch } = {}): IdentityProvider {
  const configurations = new Map<string, CachedConfiguration>();

  const configure = async (client: IdentityProviderClient): Promise<oidc.Configuration> => {
    const key = createHash('sha256').update(`${client.issuer}\n${client.clientId}\n${client.clientSecret}`).digest('base64url');
    const cached = configurations.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.configuration;
    const execute = [oidc.enableNonRepudiationChecks, ...(isLoopbackIssuer(client.issuer) ? [oidc.allowInsecureRequests] : [])];
    try {
      const configuration = await oidc.discovery(new URL(client.issuer), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), {
        execute,
        timeout: PROVIDER_TIMEOUT_SECONDS,
        ...(options.fetch ? { [oidc.customFetch]: options.fetch } : {}),
      });
      configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
      configurations.clear();
      configurations.set(key, { configuration, expiresAt: Date.now() + CONFIGURATION_TTL_MS });
      return configuration;
    } catch {
      throw new IdentityProviderUnavailable("The identity provider's discovery document could not be read; try again shortly.");
    }
  };

  return {
    async authorizationUrl(client, request) {
      const configuration = await configure(client);
      return oidc
        .buildAuthorizationUrl(configuration, {
          redirect_uri: client.redirectUri,
          scope: client.scopes.join(' '),
          state: request.state,
          nonce: request.nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
          code_challenge_method: 'S256',
        })
        .toString();
    },

    async redeemCode(client, callbackUrl, expected) {
      const configuration = await configure(client);
      // The redirect_uri sent with the code is read off this URL: it must be the registered one, whatever Host the browser used.
      const current = new URL(client.redirectUri);
      current.search = callbackUrl.search;
      try {
        const tokens = await oidc.authorizationCodeGrant(configuration, current, {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        });
        return grantOf(tokens, claimsOf(configuration, tokens));
      } catch (error) {
        if (error instanceof IdentityRefusal) throw error;
        throw classify(error, (code) => (code === 'access_denied' ? 'access_denied' : 'provider_error'));
      }
    },

    async startDevice(client) {
      const configuration = await configure(client);
      if (!configuration.serverMetadata().device_authorization_endpoint)
        throw new IdentityProviderUnsupported('The identity provider does not offer the device authorization grant: enable it there, or sign in with an API key.');
      try {
        const started = await oidc.initiateDeviceAuthorization(configuration, { scope: client.scopes.join(' ') });
        return {
          deviceCode: started.device_code,
          userCode: started.user_code,
          verificationUri: started.verification_uri,
          verificationUriComplete: started.verification_uri_complete ?? null,
          expiresInSeconds: started.expires_in,
          intervalSeconds: started.interval ?? 5,
        };
      } catch (error) {
        throw classify(error);
      }
    },

    async pollDevice(client, deviceCode) {
      const configuration = await configure(client);
      try {
        // One token request per poll (the CLI polls OCC; OCC polls the provider once per call).
        const tokens = await oidc.genericGrantRequest(configuration, DEVICE_GRANT, { device_code: deviceCode });
        return grantOf(tokens, claimsOf(configuration, tokens));
      } catch (error) {
        const code = oauthError(error);
        if (code === 'authorization_pending') return 'pending';
        if (code === 'slow_down') return 'slow_down';
        if (error instanceof IdentityRefusal) throw error;
        throw classify(error, (c) => (c === 'access_denied' ? 'access_denied' : c === 'expired_token' ? 'attempt_expired' : 'provider_error'));
      }
    },

    async refresh(client, refreshToken, expectedSubject) {
      const configuration = await configure(client);
      try {
        const tokens = await oidc.refreshTokenGrant(configuration, refreshToken);
        const idClaims = tokens.claims();
        // Without a new ID token the claims come from userinfo, for the same subject only.
        const claims = idClaims ? (idClaims as IdentityClaims) : ((await oidc.fetchUserInfo(configuration, tokens.access_token, expectedSubject)) as unknown as IdentityClaims);
        if (claims.sub !== expectedSubject) throw refusal('token_invalid');
        return { claims, refreshToken: tokens.refresh_token ?? refreshToken, idToken: tokens.id_token ?? null };
      } catch (error) {
        if (error instanceof IdentityRefusal) throw error;
        throw classify(error, () => 'refresh_rejected');
      }
    },

    async revoke(client, refreshToken) {
      try {
        const configuration = await configure(client);
        if (!configuration.serverMetadata().revocation_endpoint) return;
        await oidc.tokenRevocation(configuration, refreshToken, { token_type_hint: 'refresh_token' });
      } catch {
        // Best effort: the session is already over at OCC; the token expires at the provider.
      }
    },

    async signOutUrl(client, idToken, postLogoutRedirectUri) {
      const configuration = await configure(client);
      if (!configuration.serverMetadata().end_session_endpoint) return null;
      return oidc
        .buildEndSessionUrl(configuration, {
          post_logout_redirect_uri: postLogoutRedirectUri,
          client_id: client.clientId,
          ...(idToken ? { id_token_hint: idToken } : {}),
        })
        .toString();
    },
  };
}
