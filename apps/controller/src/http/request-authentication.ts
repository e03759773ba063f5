import type { FastifyRequest } from 'fastify';
import { CSRF_HEADER, type RouteContract } from '@occ/contracts';
import type { ControllerDeps } from '../core/deps.ts';
import { OccError } from '../core/errors.ts';
import { csrfMatches, sessionTokenFromCookie } from '../core/iam/console-session-tokens.ts';
import { authenticate } from '../core/use-cases/authenticate.ts';
import { authenticateSession } from '../core/use-cases/console-sessions.ts';

/** Reads are safe by HTTP semantics; everything else a cookie carries must prove it came from the console. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

const csrfRejected = () => new OccError('FORBIDDEN', 'A request authenticated by the console session cookie must carry its CSRF token (X-CSRF-Token).');

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Who is calling, before the body is even validated (so a refused request changes nothing):
 * - `Authorization` present: the API key alone; cookies are ignored, so API clients never meet CSRF;
 * - otherwise the console session cookie, as its principal (IAM then applies exactly as for its key),
 *   with the CSRF token required on anything but GET/HEAD;
 * - `session` routes (the session itself) take only the cookie.
 */
export async function authenticateRequest(deps: ControllerDeps, route: RouteContract, request: FastifyRequest): Promise<void> {
  const { headers } = request;
  if (route.auth === 'api_key' && (headers.authorization !== undefined || headers.cookie === undefined)) {
    request.caller = await authenticate(deps, headers.authorization, request.id);
    return;
  }
  const { caller, session } = await authenticateSession(deps, sessionTokenFromCookie(headers.cookie), request.id);
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(headerValue(headers[CSRF_HEADER]), session.csrfHash)) throw csrfRejected();
  request.caller = caller;
  request.consoleSession = session;
}
