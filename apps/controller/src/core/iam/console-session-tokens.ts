import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_COOKIE } from '@occ/contracts';

/** Sessions are absolute: 8 hours from sign-in, however active (and never past their key's expiry). */
export const SESSION_TTL_SECONDS = 8 * 60 * 60;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** 256 random bits, base64url: like an API key, a single SHA-256 is a sufficient stored form. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export const looksLikeSessionToken = (value: string): boolean => TOKEN_PATTERN.test(value);

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The CSRF token is derived from the session token (HMAC keyed by it), so the console can read it
 * again after a reload without the server storing it, and no server-wide key has to be shared
 * between replicas. Knowing it reveals nothing about the session token (the HMAC is one-way), and
 * a cross-site page cannot compute it without the HttpOnly cookie.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('occ console csrf v1').digest('base64url');
}

/** Constant-time: a presented CSRF token against the stored hash of the session's one. */
export function csrfMatches(presented: string | undefined, csrfHash: Uint8Array): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 128) return false;
  const hash = sha256(presented);
  return hash.length === csrfHash.length && timingSafeEqual(hash, csrfHash);
}

/** The first cookie called `name` in a `Cookie` header, if it is a well-formed token. */
export function tokenFromCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return looksLikeSessionToken(value) ? value : undefined;
  }
  return undefined;
}

/** The session token of a `Cookie` header, if it carries a well-formed one (the first wins). */
export const sessionTokenFromCookie = (cookieHeader: string | undefined): string | undefined => tokenFromCookie(cookieHeader, SESSION_COOKIE);

/** Set-Cookie for a new session. Secure only over TLS: over plain http a browser would drop it. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_SECONDS}${secure ? '; Secure' : ''}`;
}

/** Set-Cookie that makes the browser forget the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** A CLI session's bearer token (occ login --sso): told apart from an API key (`occ_`) by its prefix. */
const CLI_TOKEN_PATTERN = /^occs_[A-Za-z0-9_-]{43}$/;
export const generateCliSessionToken = (): string => `occs_${generateSessionToken()}`;
export const looksLikeCliSessionToken = (value: string): boolean => CLI_TOKEN_PATTERN.test(value);

/** A device sign-in's request id: only its holder may poll it. */
export const generateDeviceRequestId = (): string => `occd_${generateSessionToken()}`;

/** Sessions end after an hour without a request, however long their absolute lifetime. */
export const SESSION_IDLE_SECONDS = 60 * 60;

/**
 * The cookie that binds a browser sign-in to the browser that began it (a callback carried to
 * another browser is refused). Lax, not Strict: it must come back on the provider's redirect.
 */
export const SIGN_IN_COOKIE = 'occ_sign_in';
export function signInCookie(token: string, secure: boolean, path: string): string {
  return `${SIGN_IN_COOKIE}=${token}; HttpOnly; SameSite=Lax; Path=${path}; Max-Age=600${secure ? '; Secure' : ''}`;
}
export function clearedSignInCookie(secure: boolean, path: string): string {
  return `${SIGN_IN_COOKIE}=; HttpOnly; SameSite=Lax; Path=${path}; Max-Age=0${secure ? '; Secure' : ''}`;
}
