import type { FastifyRequest } from 'fastify';
import { CSRF_HEADER, type RouteContract } from '@occ/contracts';
import type { ControllerDeps } from '../core/deps.ts';
import { OccError } from '../core/errors.ts';
import { csrfMatches, looksLikeCliSessionToken, sessionTokenFromCookie } from '../core/iam/console-session-tokens.ts';
import { authenticate } from '../core/use-cases/authenticate.ts';
import { authenticateSession } from '../core/use-cases/console-sessions.ts';

/** Reads are safe by HTTP semantics; everything else a cookie carries must prove it came from the console. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

const csrfRejected = () => new OccError('FORBIDDEN', 'A request authenticated by the console session cookie must carry its CSRF token (X-CSRF-Token).');

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The bearer token of an `Authorization` header, if it is a CLI session's (occ login --sso). */
function cliSessionToken(authorization: string | undefined): string | undefined {
  const token = /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];
  return token && looksLikeCliSessionToken(token) ? token : undefined;
}

/**
 * Who is calling, before the body is even validated (so a refused request changes nothing):
 * - `Authorization` with a CLI session's token (`occs_…`): that session, on any route but the
 *   API-key exchange; no CSRF (a bearer token is never sent by a browser on its own);
 * - `Authorization` otherwise: the API key alone; cookies are ignored, so API clients never meet CSRF;
 * - otherwise the console session cookie, as its principal (IAM then applies exactly as for its key),
 *   with the CSRF token required on anything but GET/HEAD;
 * - `session` routes (the session itself) take only the cookie.
 */
export async function authenticateRequest(deps: ControllerDeps, route: RouteContract, request: FastifyRequest): Promise<void> {
  const { headers } = request;
  const cliToken = cliSessionToken(headers.authorization);
  if (cliToken) {
    const { caller, session } = await authenticateSession(deps, cliToken, request.id);
    request.caller = caller;
    request.consoleSession = session;
    return;
  }
  if (route.auth === 'api_key' && (headers.authorization !== undefined || headers.cookie === undefined)) {
    request.caller = await authenticate(deps, headers.authorization, request.id);
    return;
  }
  const { caller, session } = await authenticateSession(deps, sessionTokenFromCookie(headers.cookie), request.id);
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(headerValue(headers[CSRF_HEADER]), session.csrfHash)) throw csrfRejected();
  request.caller = caller;
  request.consoleSession = session;
}
