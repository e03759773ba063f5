import { createApiClient, type ApiClient } from '@occ/contracts/client';

/**
 * The typed API client as the console uses it: same origin, the session cookie sent by the
 * browser (never readable by scripts), the CSRF token from memory on mutations. Any 401 from an
 * authenticated route means the session is gone: `onSessionLost` clears every private view, with
 * the controller's message (why it ended: expired, revoked, single sign-on access gone) when the
 * answer carries one.
 */
export interface ConsoleApiOptions {
  csrfToken: () => string | undefined;
  onSessionLost: (message: string | undefined) => void;
}

/** The message of an error envelope (`{ error: { message } }`), read from a copy of the answer. */
async function errorMessage(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { message?: unknown } } | null;
    const message = body?.error?.message;
    return typeof message === 'string' && message.trim() !== '' ? message : undefined;
  } catch {
    return undefined;
  }
}

export function createConsoleApi(options: ConsoleApiOptions): ApiClient {
  return createApiClient({
    server: '',
    csrfToken: options.csrfToken,
    fetch: async (url, init) => {
      const response = await fetch(url, { ...init, credentials: 'same-origin', cache: 'no-store' });
      // Signing in answers 401 for a wrong key: that is a form error, not a lost session.
      if (response.status === 401 && !(init.method === 'POST' && url === '/sessions')) options.onSessionLost(await errorMessage(response));
      return response;
    },
  });
}
