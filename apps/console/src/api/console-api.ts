import { createApiClient, type ApiClient } from '@occ/contracts/client';

/**
 * The typed API client as the console uses it: same origin, the session cookie sent by the
 * browser (never readable by scripts), the CSRF token from memory on mutations. Any 401 from an
 * authenticated route means the session is gone: `onSessionLost` clears every private view.
 */
export interface ConsoleApiOptions {
  csrfToken: () => string | undefined;
  onSessionLost: () => void;
}

export function createConsoleApi(options: ConsoleApiOptions): ApiClient {
  return createApiClient({
    server: '',
    csrfToken: options.csrfToken,
    fetch: async (url, init) => {
      const response = await fetch(url, { ...init, credentials: 'same-origin', cache: 'no-store' });
      // Signing in answers 401 for a wrong key: that is a form error, not a lost session.
      if (response.status === 401 && !(init.method === 'POST' && url === '/sessions')) options.onSessionLost();
      return response;
    },
  });
}
