import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { Caller } from '../iam/access.ts';
import { hashApiKey, looksLikeApiKey } from '../iam/api-keys.ts';
import { csrfTokenFor, generateSessionToken, looksLikeSessionToken, SESSION_TTL_SECONDS, sha256 } from '../iam/console-session-tokens.ts';
import { newId } from '../ids.ts';

/** What a session route hands its handler: the caller, and the session (never its token). */
export interface ConsoleSession {
  id: string;
  principalId: string;
  principalName: string;
  expiresAt: Date;
  csrfHash: Uint8Array;
  csrfToken: string;
}

export interface SessionView {
  principalId: string;
  principalName: string;
  expiresAt: string;
  csrfToken: string;
}

const badKey = () => new OccError('UNAUTHENTICATED', 'The API key is not valid.');
const noSession = () => new OccError('UNAUTHENTICATED', 'A valid console session is required (sign in again).');

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
 * The caller of a session cookie's token. Not cached (unlike API keys): sign-out and key
 * revocation end a session at once in every replica, and a console sends few requests.
 */
export async function authenticateSession(deps: ControllerDeps, token: string | undefined, requestId: string): Promise<{ caller: Caller; session: ConsoleSession }> {
  if (!token || !looksLikeSessionToken(token)) throw noSession();
  const found = await deps.state.read((uow) => uow.sessions.authenticate(sha256(token)));
  if (!found) throw noSession();
  return {
    caller: { principalId: found.session.principalId, requestId, policy: found.policy },
    session: { ...found.session, csrfToken: csrfTokenFor(token) },
  };
}

/** Sign-out: the session ends now (the cookie is cleared by the handler). */
export async function deleteSession(deps: ControllerDeps, caller: Caller, session: ConsoleSession): Promise<void> {
  await deps.state.transact(async (uow) => {
    if (!(await uow.sessions.revoke(session.id))) throw noSession();
    await recordAudit(uow, caller, { action: 'sessions.delete', resource: { kind: 'console_session', id: session.id } });
  });
}
