import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { Caller } from '../iam/access.ts';
import { hashApiKey, looksLikeApiKey } from '../iam/api-keys.ts';
import {
  csrfTokenFor,
  generateSessionToken,
  looksLikeCliSessionToken,
  looksLikeSessionToken,
  SESSION_IDLE_SECONDS,
  SESSION_TTL_SECONDS,
  sha256,
} from '../iam/console-session-tokens.ts';
import { matchingRuleIds } from '../iam/sign-in-admission.ts';
import { postLogoutUriFor } from '../iam/sign-in-urls.ts';
import type { ConsoleSessionRecord } from '../ports/console-session-repository.ts';
import { IdentityProviderUnavailable, IdentityRefusal, type ProviderGrant } from '../ports/identity-provider.ts';
import type { SignInProviderRecord } from '../ports/sign-in-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { sealProviderTokens, withProviderTokens } from './provider-tokens.ts';
import { withIdentityProvider } from './sign-in-provider.ts';
import { newId } from '../ids.ts';

/** What a session route hands its handler: the caller, and the session (never its token). */
export interface ConsoleSession extends ConsoleSessionRecord {
  csrfToken: string;
}

export interface SessionView {
  principalId: string;
  principalName: string;
  expiresAt: string;
  csrfToken: string;
}

const badKey = () => new OccError('UNAUTHENTICATED', 'The API key is not valid.');
const noSession = () => new OccError('UNAUTHENTICATED', 'A valid session is required (sign in again).');

export const sessionView = (s: Pick<ConsoleSession, 'principalId' | 'principalName' | 'expiresAt' | 'csrfToken'>): SessionView => ({
  principalId: s.principalId,
  principalName: s.principalName,
  expiresAt: s.expiresAt.toISOString(),
  csrfToken: s.csrfToken,
});

/**
 * Exchanges an API key for a session. The key is checked as bearer authentication checks it
 * (well-formed, known, unrevoked, unexpired); the new session's token is returned once, for the
 * cookie, and only its hash is stored.
 */
export async function createSession(deps: ControllerDeps, apiKey: string, requestId: string): Promise<{ token: string; view: SessionView }> {
  if (!looksLikeApiKey(apiKey)) throw badKey();
  const token = generateSessionToken();
  const csrfToken = csrfTokenFor(token);
  const id = newId('console_session');
  const created = await deps.state.transact(async (uow) => {
    const session = await uow.sessions.insertForKey({ id, keyHash: hashApiKey(apiKey), tokenHash: sha256(token), csrfHash: sha256(csrfToken), ttlSeconds: SESSION_TTL_SECONDS });
    if (!session) throw badKey();
    // The actor is the principal signing in; its policy plays no part in an audit event.
    await recordAudit(
      uow,
      { principalId: session.principalId, requestId, policy: { principalId: session.principalId, bindings: [], restrictions: [] } },
      {
        action: 'sessions.create',
        resource: { kind: 'console_session', id },
      },
    );
    return session;
  });
  return { token, view: sessionView({ ...created, csrfToken }) };
}

/**
 * A refresh holds its session's claim this long (longer than the driver's provider timeouts), and
 * other requests may go on with the old groups this long after the refresh fell due; past it
 * they wait for a refresh that succeeds (503 until then).
 */
const REFRESH_LEASE_SECONDS = 30;

/**
 * The caller of a session's token (a console cookie, or a CLI session's bearer token). Not cached
 * (unlike API keys): sign-out and key revocation end a session at once in every replica, and a
 * person sends few requests. A single sign-on session whose groups are due to be re-read is
 * refreshed first (refreshSession, below): the request then runs with the access the groups give now.
 */
export async function authenticateSession(deps: ControllerDeps, token: string | undefined, requestId: string): Promise<{ caller: Caller; session: ConsoleSession }> {
  const kind = token && looksLikeCliSessionToken(token) ? 'cli' : 'console';
  if (!token || !(kind === 'cli' || looksLikeSessionToken(token))) throw noSession();
  const limits = { idleSeconds: SESSION_IDLE_SECONDS, refreshGraceSeconds: REFRESH_LEASE_SECONDS };
  const read = () => deps.state.read((uow) => uow.sessions.authenticate(sha256(token), kind, limits));
  let found = await read();
  if (!found) throw noSession();
  const refresh = found.session.sso?.refresh ?? 'fresh';
  if (refresh !== 'fresh') {
    if (await refreshSession(deps, found.session, requestId)) found = await read();
    // Another request is refreshing: its old groups serve only within the grace, never longer.
    else if (refresh === 'overdue') throw providerSilent();
    if (!found) throw new OccError('UNAUTHENTICATED', 'Your single sign-on session has ended: sign in again.');
  }
  return {
    caller: { principalId: found.session.principalId, requestId, policy: found.policy },
    session: { ...found.session, csrfToken: csrfTokenFor(token) },
  };
}

const providerSilent = () => new OccError('IDENTITY_PROVIDER_UNAVAILABLE', 'The identity provider did not answer while your session was due to be refreshed; try again shortly.');

/**
 * Re-reads the person's claims from the provider and makes their rule-granted access follow their
 * groups. One request per session does it (a claim); the others go on meanwhile. The provider
 * refusing (the person was disabled, the grant revoked) or no rule admitting them any more ends
 * the session; the provider not answering fails the request (503), never the session's rules.
 * Answers whether it refreshed.
 */
async function refreshSession(deps: ControllerDeps, session: ConsoleSessionRecord, requestId: string): Promise<boolean> {
  const sso = session.sso!;
  const claim = generateSessionToken();
  if (!(await deps.state.transact((uow) => uow.sessions.claimRefresh(session.id, claim, REFRESH_LEASE_SECONDS)))) return false;
  const actor = { principalId: session.principalId, requestId, policy: { principalId: session.principalId, bindings: [], restrictions: [] } };
  /**
   * Ends the session in the transaction that takes the person's rule-granted access away: no
   * request can find the session live with its access gone (a signed-in page with nothing in it).
   */
  const endIn = async (uow: UnitOfWork, reason: 'refresh_rejected' | 'no_matching_rule') => {
    const { revoked } = await uow.iam.syncSignInBindings(session.principalId, []);
    await uow.sessions.revoke(session.id);
    await recordAudit(uow, actor, {
      action: 'sessions.refused',
      outcome: 'denied',
      resource: { kind: 'console_session', id: session.id },
      details: { method: 'oidc', kind: session.kind, reason, issuer: sso.issuer, revokedRules: revoked },
    });
  };
  const ended = (reason: 'refresh_rejected' | 'no_matching_rule') =>
    new OccError(
      'UNAUTHENTICATED',
      reason === 'no_matching_rule'
        ? 'No sign-in rule admits you any more (your groups changed): your session has ended.'
        : 'The identity provider ended your sign-in: sign in again.',
    );
  let outcome: { grant: ProviderGrant; provider: SignInProviderRecord } | 'refused';
  try {
    outcome = await withProviderTokens(deps, session.id, sso.providerTokensSealed, async (tokens) => {
      const subject = await deps.state.read((uow) => uow.signIn.subjectOf(sso.issuer, session.principalId));
      if (!tokens.refreshToken || !subject) return 'refused' as const;
      return withIdentityProvider(deps, async (client, provider) => ({ grant: await deps.identity.refresh(client, tokens.refreshToken!, subject), provider }));
    });
  } catch (error) {
    if (error instanceof IdentityRefusal) outcome = 'refused';
    else {
      await deps.state.transact((uow) => uow.sessions.releaseRefresh(session.id, claim));
      if (error instanceof IdentityProviderUnavailable) throw providerSilent();
      throw error;
    }
  }
  if (outcome === 'refused') {
    await deps.state.transact((uow) => endIn(uow, 'refresh_rejected'));
    throw ended('refresh_rejected');
  }
  const { grant, provider } = outcome;
  const admitted = await deps.state.transact(async (uow) => {
    const ruleIds = matchingRuleIds(await uow.iam.allSignInRules(), grant.claims);
    if (ruleIds.length === 0) {
      await endIn(uow, 'no_matching_rule');
      return false;
    }
    const result = await uow.iam.syncSignInBindings(session.principalId, ruleIds);
    // A claim that lapsed meanwhile (another request refreshed after it) keeps the newer result.
    if (!(await uow.sessions.refreshed(session.id, claim, sealProviderTokens(deps, session.id, grant), provider.refreshIntervalSeconds))) return true;
    if (result.granted.length > 0 || result.revoked.length > 0)
      await recordAudit(uow, actor, { action: 'sessions.refresh', resource: { kind: 'console_session', id: session.id }, details: { method: 'oidc', rules: ruleIds, ...result } });
    return true;
  });
  if (!admitted) throw ended('no_matching_rule');
  return true;
}

/**
 * Sign-out: the session ends now (the cookie is cleared by the handler). A single sign-on session's
 * refresh token is revoked at the provider (best effort), and the answer names the provider's
 * end-session URL, for the browser to end the provider's own session too.
 */
export async function deleteSession(deps: ControllerDeps, caller: Caller, session: ConsoleSession): Promise<{ providerSignOutUrl: string | null }> {
  await deps.state.transact(async (uow) => {
    if (!(await uow.sessions.revoke(session.id))) throw noSession();
    await recordAudit(uow, caller, { action: 'sessions.delete', resource: { kind: 'console_session', id: session.id } });
  });
  if (!session.sso) return { providerSignOutUrl: null };
  try {
    const providerSignOutUrl = await withProviderTokens(deps, session.id, session.sso.providerTokensSealed, (tokens) =>
      withIdentityProvider(deps, async (client, provider) => {
        if (tokens.refreshToken) await deps.identity.revoke(client, tokens.refreshToken);
        return session.kind === 'console' ? deps.identity.signOutUrl(client, tokens.idToken, postLogoutUriFor(provider.publicUrl)) : null;
      }),
    );
    return { providerSignOutUrl };
  } catch {
    // Signed out of OCC already; the provider's own session is the provider's to end.
    return { providerSignOutUrl: null };
  }
}
