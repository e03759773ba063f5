import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';
import { SignOutSchema } from '../resources/sign-in.ts';
import type { RouteContract } from './route-contract.ts';

/** The name of the console's session cookie (HttpOnly: the browser's scripts never see it). */
export const SESSION_COOKIE = 'occ_session';
/** The header a cookie-authenticated mutation carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

export const CreateSessionBodySchema = Closed({ apiKey: Type.String({ minLength: 1, maxLength: 200 }) });

/** What the console holds in memory: never the session token itself, which stays in the cookie. */
export const ConsoleSessionSchema = Closed({
  principalId: IdSchema('principal'),
  /** The principal's name (the console shows it, never the id). */
  principalName: NameSchema,
  expiresAt: TimestampSchema,
  csrfToken: Type.String({ description: 'Send as X-CSRF-Token on every cookie-authenticated request other than GET/HEAD.' }),
});
export type ConsoleSessionInfo = Static<typeof ConsoleSessionSchema>;

export const sessionRoutes = [
  {
    operationId: 'createSession',
    method: 'POST',
    path: '/sessions',
    tag: 'sessions',
    summary: 'Exchange an API key for a console session: an HttpOnly cookie (occ_session) and a CSRF token.',
    auth: 'public',
    successStatus: 201,
    audit: 'sessions.create',
    errors: [400, 401, 413, 415, 500, 503],
    schemas: { body: CreateSessionBodySchema, data: ConsoleSessionSchema },
  },
  {
    operationId: 'getSession',
    method: 'GET',
    path: '/sessions/current',
    tag: 'sessions',
    summary: 'The console session of the occ_session cookie, with its CSRF token (read again after a reload).',
    auth: 'session',
    successStatus: 200,
    errors: [401, 500, 503],
    schemas: { data: ConsoleSessionSchema },
  },
  {
    operationId: 'deleteSession',
    method: 'DELETE',
    path: '/sessions/current',
    tag: 'sessions',
    summary: 'Sign out: revoke the session (its cookie, or a CLI session token) and clear the cookie; a single sign-on session also names where to end the provider’s.',
    auth: 'session',
    successStatus: 200,
    audit: 'sessions.delete',
    errors: [401, 403, 500, 503],
    schemas: { data: SignOutSchema },
  },
] as const satisfies readonly RouteContract[];
