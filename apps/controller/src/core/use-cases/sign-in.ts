import type { CliSession, DeviceSignIn, SignInRefusalReason } from '@occ/contracts';
import { recordAnonymousAudit, recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';
import { csrfTokenFor, generateCliSessionToken, generateDeviceRequestId, generateSessionToken, SESSION_TTL_SECONDS, sha256 } from '../iam/console-session-tokens.ts';
import { matchingRuleIds, personName } from '../iam/sign-in-admission.ts';
import { newId } from '../ids.ts';
import { IdentityProviderUnavailable, IdentityProviderUnsupported, IdentityRefusal, type ProviderGrant } from '../ports/identity-provider.ts';
import type { SignInProviderRecord } from '../ports/sign-in-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { sealProviderTokens } from './provider-tokens.ts';
import type { SessionView } from './console-sessions.ts';
import { withIdentityProvider } from './sign-in-provider.ts';

/** A browser has this long between "Sign in" and the provider sending it back. */
const BROWSER_ATTEMPT_SECONDS = 10 * 60;

const REFUSALS: Record<SignInRefusalReason, string> = {
  attempt_unknown: 'This sign-in is not one OCC started (or it was forgotten): start again.',
  attempt_replayed: 'This sign-in was already used: start again.',
  attempt_expired: 'The sign-in took too long and expired: start again.',
  browser_mismatch: 'This sign-in was started in another browser: start again here.',
  provider_error: 'The identity provider refused the sign-in.',
  token_invalid: "The identity provider's ID token failed validation (its signature or its claims).",
  audience_mismatch: 'The ID token was issued to another client (its audience is not this OCC).',
  token_expired: 'The ID token has expired (or is not valid yet).',
  nonce_mismatch: "The ID token does not belong to this sign-in (its nonce is another sign-in's).",
  issuer_mismatch: 'The ID token was issued by another provider.',
  no_matching_rule: 'You signed in at the identity provider, but no sign-in rule admits you to OCC: ask an administrator to add your group.',
  access_denied: 'The sign-in was denied at the identity provider.',
  refresh_rejected: 'The identity provider ended this sign-in: sign in again.',
};

/** A refused sign-in as the API answers it: the reason's fixed message, never what the provider said. */
class SignInRefused extends OccError {
  constructor(readonly reason: SignInRefusalReason) {
    super('SIGN_IN_REFUSED', REFUSALS[reason]);
  }
}

const unavailable = () => new OccError('IDENTITY_PROVIDER_UNAVAILABLE', 'The identity provider did not answer; try again shortly.');

/** The port's failures as the API answers them. */
function asApiError(error: unknown): unknown {
  if (error instanceof IdentityRefusal) return new SignInRefused(error.reason);
  if (error instanceof IdentityProviderUnavailable) return unavailable();
  if (error instanceof IdentityProviderUnsupported) return new OccError('SIGN_IN_NOT_CONFIGURED', error.message);
  return error;
}

const random = generateSessionToken;

/** Every refusal is audited, in its own transaction (nothing else of the sign-in is kept). */
async function refuse(deps: ControllerDeps, requestId: string, reason: SignInRefusalReason, who: { issuer?: string; subject?: string; kind: 'console' | 'cli' }): Promise<never> {
  await deps.state.transact((uow) =>
    recordAnonymousAudit(uow, requestId, {
      action: 'sessions.refused',
      outcome: 'denied',
      resource: { kind: 'console_session', id: null },
      details: { method: 'oidc', kind: who.kind, reason, ...(who.issuer ? { issuer: who.issuer } : {}), ...(who.subject ? { subject: who.subject } : {}) },
    }),
  );
  throw new SignInRefused(reason);
}

export interface SignedIn {
  token: string;
  view: SessionView;
  /** OCC's public URL is https (behind a proxy that ends TLS too): its cookies are `Secure`. */
  httpsPublicUrl: boolean;
}

/**
 * A person the provider vouched for becomes a session: the rules matching their claims decide
 * (none → refused), their principal is created the first time (just in time) and linked to the
 * provider's (issuer, subject), and their rule-granted bindings become exactly the matching rules'.
 */
async function admit(
  deps: ControllerDeps,
  provider: SignInProviderRecord,
  grant: ProviderGrant,
  kind: 'console' | 'cli',
  requestId: string,
): Promise<SignedIn | SignInRefusalReason> {
  const { claims } = grant;
  const token = kind === 'cli' ? generateCliSessionToken() : generateSessionToken();
  const csrfToken = csrfTokenFor(token);
  const sessionId = newId('console_session');
  return deps.state.transact(async (uow) => {
    const ruleIds = matchingRuleIds(await uow.iam.allSignInRules(), claims);
    let principalId = await uow.signIn.principalOf(provider.issuer, claims.sub);
    if (ruleIds.length === 0) {
      // Removed from every group: whatever the rules once granted goes now, not at a later refresh.
      const revoked = principalId ? (await uow.iam.syncSignInBindings(principalId, [])).revoked : [];
      await recordAnonymousAudit(uow, requestId, {
        action: 'sessions.refused',
        outcome: 'denied',
        resource: { kind: 'console_session', id: null },
        details: { method: 'oidc', kind, reason: 'no_matching_rule', issuer: provider.issuer, subject: claims.sub, revokedRules: revoked },
      });
      return 'no_matching_rule' as const;
    }
    const created = principalId === null;
    if (principalId === null) principalId = await newPersonPrincipal(uow, provider.issuer, claims);
    const changed = await uow.iam.syncSignInBindings(principalId, ruleIds);
    const session = await uow.sessions.insertForIdentity({
      id: sessionId,
      kind,
      principalId,
      issuer: provider.issuer,
      tokenHash: sha256(token),
      csrfHash: sha256(csrfToken),
      providerTokensSealed: sealProviderTokens(deps, sessionId, grant),
      ttlSeconds: SESSION_TTL_SECONDS,
      refreshIntervalSeconds: provider.refreshIntervalSeconds,
    });
    await recordAudit(
      uow,
      { principalId, requestId, policy: { principalId, bindings: [], restrictions: [] } },
      {
        action: 'sessions.create',
        resource: { kind: 'console_session', id: sessionId },
        details: { method: 'oidc', kind, issuer: provider.issuer, subject: claims.sub, principalCreated: created, rules: ruleIds, ...changed },
      },
    );
    return {
      token,
      view: { principalId, principalName: session.principalName, expiresAt: session.expiresAt.toISOString(), csrfToken },
      httpsPublicUrl: provider.publicUrl.startsWith('https:'),
    };
  });
}

/** A person's first sign-in: their principal, linked to the provider's (issuer, subject). */
async function newPersonPrincipal(uow: UnitOfWork, issuer: string, claims: ProviderGrant['claims']): Promise<string> {
  const created = (await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: personName(claims) })).id;
  if (await uow.signIn.linkIdentity(issuer, claims.sub, created)) return created;
  // The same person's other first sign-in committed first: theirs is the principal.
  await uow.iam.deletePrincipal(created);
  const linked = await uow.signIn.principalOf(issuer, claims.sub);
  if (!linked) throw new Error('An external identity link vanished while it was being read');
  return linked;
}

// ---- The browser: authorization code with PKCE -------------------------------------------------

/**
 * Begins a browser sign-in: state, nonce and PKCE verifier are kept server-side (keyed by the
 * state's hash), bound to the browser by a cookie the caller sets; the browser goes to the provider.
 */
export async function startBrowserSignIn(deps: ControllerDeps): Promise<{ redirectUrl: string; browserToken: string; httpsPublicUrl: boolean }> {
  const state = random();
  const nonce = random();
  const codeVerifier = random();
  const browserToken = random();
  try {
    const { redirectUrl, httpsPublicUrl } = await withIdentityProvider(deps, async (client, provider) => ({
      redirectUrl: await deps.identity.authorizationUrl(client, { state, nonce, codeVerifier }),
      httpsPublicUrl: provider.publicUrl.startsWith('https:'),
    }));
    await deps.state.transact(async (uow) => {
      await uow.signIn.purgeAttempts();
      await uow.signIn.insertAttempt(sha256(state), {
        kind: 'browser',
        browserHash: sha256(browserToken),
        nonce,
        codeVerifier,
        expiresAt: new Date(deps.now().getTime() + BROWSER_ATTEMPT_SECONDS * 1000),
        consumedAt: null,
      });
    });
    return { redirectUrl, browserToken, httpsPublicUrl };
  } catch (error) {
    throw asApiError(error);
  }
}

/**
 * The browser is back from the provider. The attempt is used up first, in its own transaction,
 * so the same callback can never be redeemed twice (a replay is refused even if the first
 * redemption failed); then the code is exchanged and the ID token validated (the driver); then
 * the person is admitted.
 */
export async function finishBrowserSignIn(deps: ControllerDeps, callbackUrl: URL, browserToken: string | undefined, requestId: string): Promise<SignedIn> {
  const kind = 'console';
  const state = callbackUrl.searchParams.get('state');
  if (!state) return refuse(deps, requestId, 'attempt_unknown', { kind });
  const attempt = await deps.state.transact(async (uow) => {
    const found = await uow.signIn.lockAttempt(sha256(state));
    if (found?.kind !== 'browser') return 'attempt_unknown' as const;
    if (found.consumedAt) return 'attempt_replayed' as const;
    await uow.signIn.consumeAttempt(sha256(state));
    if (found.expiresAt.getTime() <= deps.now().getTime()) return 'attempt_expired' as const;
    if (!browserToken || !Buffer.from(sha256(browserToken)).equals(Buffer.from(found.browserHash))) return 'browser_mismatch' as const;
    return found;
  });
  if (typeof attempt === 'string') return refuse(deps, requestId, attempt, { kind });
  let outcome: { grant: ProviderGrant; provider: SignInProviderRecord };
  try {
    outcome = await withIdentityProvider(deps, async (client, provider) => ({
      grant: await deps.identity.redeemCode(client, callbackUrl, { state, nonce: attempt.nonce, codeVerifier: attempt.codeVerifier }),
      provider,
    }));
  } catch (error) {
    if (error instanceof IdentityRefusal) return refuse(deps, requestId, error.reason, { kind });
    throw asApiError(error);
  }
  const admitted = await admit(deps, outcome.provider, outcome.grant, kind, requestId);
  if (typeof admitted === 'string') throw new SignInRefused(admitted);
  return admitted;
}

// ---- The CLI: the device authorization grant (RFC 8628) ----------------------------------------

const DEVICE_KEY_BINDING = (idHash: Uint8Array) => ({ namespaceId: 'sign-in-device', secretId: Buffer.from(idHash).toString('base64url') });

export async function startDeviceSignIn(deps: ControllerDeps, requestId: string): Promise<DeviceSignIn> {
  const deviceRequestId = generateDeviceRequestId();
  const idHash = sha256(deviceRequestId);
  try {
    const started = await withIdentityProvider(deps, (client) => deps.identity.startDevice(client));
    const expiresAt = new Date(deps.now().getTime() + started.expiresInSeconds * 1000);
    await deps.state.transact(async (uow) => {
      await uow.signIn.purgeAttempts();
      await uow.signIn.insertAttempt(idHash, {
        kind: 'device',
        deviceCodeSealed: deps.secrets.seal(started.deviceCode, DEVICE_KEY_BINDING(idHash)),
        intervalSeconds: started.intervalSeconds,
        nextPollAt: deps.now(),
        expiresAt,
        consumedAt: null,
      });
      await recordAnonymousAudit(uow, requestId, { action: 'sign_in.device_start', resource: { kind: 'console_session', id: null }, details: { method: 'oidc', kind: 'cli' } });
    });
    return {
      deviceRequestId,
      userCode: started.userCode,
      verificationUri: started.verificationUri,
      verificationUriComplete: started.verificationUriComplete,
      expiresAt: expiresAt.toISOString(),
      intervalSeconds: started.intervalSeconds,
    };
  } catch (error) {
    throw asApiError(error);
  }
}

export type DevicePoll = { status: 'pending'; intervalSeconds: number } | CliSession;

/**
 * One poll. It takes the attempt's turn first (its next poll pushed an interval away, in a short
 * transaction), so concurrent polls answer "pending" without asking the provider; the provider is
 * asked outside any transaction (an unauthenticated caller never holds a row lock across it); a
 * grant then uses the attempt up, once.
 */
export async function pollDeviceSignIn(deps: ControllerDeps, deviceRequestId: string, requestId: string): Promise<DevicePoll> {
  const kind = 'cli';
  const idHash = sha256(deviceRequestId);
  const turn = await deps.state.transact(async (uow): Promise<DevicePoll | SignInRefusalReason | { deviceCodeSealed: string; intervalSeconds: number }> => {
    const attempt = await uow.signIn.lockAttempt(idHash);
    if (attempt?.kind !== 'device') return 'attempt_unknown';
    if (attempt.consumedAt) return 'attempt_replayed';
    if (attempt.expiresAt.getTime() <= deps.now().getTime()) {
      await uow.signIn.consumeAttempt(idHash);
      return 'attempt_expired';
    }
    if (attempt.nextPollAt.getTime() > deps.now().getTime()) return { status: 'pending', intervalSeconds: attempt.intervalSeconds };
    await uow.signIn.deferAttempt(idHash, attempt.intervalSeconds);
    return { deviceCodeSealed: attempt.deviceCodeSealed, intervalSeconds: attempt.intervalSeconds };
  });
  if (typeof turn === 'string') return refuse(deps, requestId, turn, { kind });
  if ('status' in turn) return turn;
  let polled: 'pending' | 'slow_down' | SignInRefusalReason | { grant: ProviderGrant; provider: SignInProviderRecord };
  try {
    polled = await deps.secrets.withValue({ driverId: deps.secrets.id, sealedValue: turn.deviceCodeSealed }, DEVICE_KEY_BINDING(idHash), (deviceCode) =>
      withIdentityProvider(deps, async (client, provider) => {
        const answer = await deps.identity.pollDevice(client, deviceCode);
        return typeof answer === 'string' ? answer : { grant: answer, provider };
      }),
    );
  } catch (error) {
    if (!(error instanceof IdentityRefusal)) throw asApiError(error);
    polled = error.reason;
  }
  if (polled === 'pending' || polled === 'slow_down') {
    const intervalSeconds = turn.intervalSeconds + (polled === 'slow_down' ? 5 : 0);
    if (polled === 'slow_down') await deps.state.transact((uow) => uow.signIn.deferAttempt(idHash, intervalSeconds));
    return { status: 'pending', intervalSeconds };
  }
  // Used up once: a poll that overlapped this one (a slow provider) finds it consumed.
  const first = await deps.state.transact(async (uow) => {
    if ((await uow.signIn.lockAttempt(idHash))?.consumedAt) return false;
    await uow.signIn.consumeAttempt(idHash);
    return true;
  });
  const result = first ? polled : 'attempt_replayed';
  if (typeof result === 'string') return refuse(deps, requestId, result, { kind });
  const admitted = await admit(deps, result.provider, result.grant, kind, requestId);
  if (typeof admitted === 'string') throw new SignInRefused(admitted);
  return { status: 'signed_in', token: admitted.token, principalId: admitted.view.principalId, principalName: admitted.view.principalName, expiresAt: admitted.view.expiresAt };
}
