import type { CliSession, DeviceSignIn } from '@occ/contracts';
import { ApiError, ApiUnreachableError, createApiClient, pause, type ApiClient, type CallResult } from '@occ/contracts/client';
import { CliError, EXIT } from '../exit-codes.ts';
import { USER_AGENT } from './connection.ts';

/** Polls in a row that may fail without an answer (the server restarting, the provider not answering) before giving up. */
const TRANSIENT_FAILURES = 3;

export interface DevicePollOptions {
  /** Waits between polls (tests pass a clock of their own). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const expired = () => new CliError('The sign-in request expired before it was completed at the identity provider: run occ login --sso again', EXIT.FORBIDDEN, 'SIGN_IN_EXPIRED');

/** No answer, or "cannot serve now" (503: the server or the identity provider): worth another poll. */
const transient = (error: unknown) => error instanceof ApiUnreachableError || (error instanceof ApiError && error.status === 503);

/**
 * Polls a device sign-in (RFC 8628 through OCC) until it is signed in: every `intervalSeconds`,
 * the server's newest (a pending answer may slow it down), never past the request's expiry. A
 * refusal (SIGN_IN_REFUSED, SIGN_IN_NOT_CONFIGURED…) is thrown as the API answered it.
 */
export async function pollDeviceSignIn(client: ApiClient, started: DeviceSignIn, options: DevicePollOptions = {}): Promise<CliSession> {
  const sleep = options.sleep ?? ((ms: number) => pause(ms, new AbortController().signal));
  const now = options.now ?? Date.now;
  const deadline = Date.parse(started.expiresAt);
  let intervalSeconds = started.intervalSeconds;
  let failures = 0;
  for (;;) {
    const left = deadline - now();
    if (left <= 0) throw expired();
    await sleep(Math.min(intervalSeconds * 1000, left));
    if (now() >= deadline) throw expired();
    let answer: CallResult<'pollDeviceSignIn'>;
    try {
      answer = await client.call('pollDeviceSignIn', { body: { deviceRequestId: started.deviceRequestId } });
    } catch (error) {
      if (transient(error) && ++failures < TRANSIENT_FAILURES) continue;
      throw error;
    }
    failures = 0;
    const data = answer.data;
    if (data.status === 'signed_in') return data;
    intervalSeconds = data.intervalSeconds;
  }
}

/**
 * A client that sends `token` as the bearer on every route: the typed client sends its key only
 * to API-key routes, and ending a CLI session (DELETE /sessions/current) is a session route.
 */
export function sessionClient(server: string, token: string): ApiClient {
  return createApiClient({
    server,
    apiKey: token,
    userAgent: USER_AGENT,
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } }),
  });
}

/**
 * Ends a CLI session on its server. Answers false when the server says it had ended already (401:
 * expired, signed out elsewhere, or the provider removed); anything else that fails is thrown.
 */
export async function endCliSession(server: string, token: string): Promise<boolean> {
  try {
    await sessionClient(server, token).call('deleteSession', {});
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}
