import type { SignInOptions } from '@occ/contracts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createConsoleApi } from '../api/console-api.ts';
import { SignInPage } from '../pages/sign-in-page.tsx';
import { SessionStore, type SessionState } from '../session/session-store.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { ConsoleContext } from './console-context.ts';
import { Shell } from './shell.tsx';
import { useHashRoute } from './use-hash-route.ts';

/** How long the sign-in page waits for GET /sign-in before it offers the API key alone. */
const SIGN_IN_OPTIONS_TIMEOUT_MS = 5_000;

/**
 * The console: signed out it shows only the sign-in page; signed in, the shell. Losing the
 * session (a 401 anywhere, or signing out) unmounts the whole signed-in tree, so no private view
 * and none of its data survives it.
 */
export function App() {
  const store = useMemo(() => new SessionStore(), []);
  const api = useMemo(() => createConsoleApi({ csrfToken: () => store.csrfToken, onSessionLost: (message) => store.lost(message) }), [store]);
  const [state, setState] = useState<SessionState>(store.state);
  const [resumeError, setResumeError] = useState<unknown>(null);
  // undefined: not known yet; null: API keys only (no provider, or the controller could not say).
  const [signInOptions, setSignInOptions] = useState<SignInOptions | null | undefined>(undefined);
  const [route, navigate] = useHashRoute();
  const signedIn = state.status === 'signed-in';

  useEffect(() => {
    const unsubscribe = store.subscribe(setState);
    store.resume(api).catch(setResumeError);
    return unsubscribe;
  }, [store, api]);

  // How one may sign in, asked alongside the session on load (and again after each sign-out):
  // the sign-in page then shows at once with single sign-on offered or not, never moving under the pointer.
  // Not cancelled by signing in meanwhile: the answer is kept for the next sign-out.
  useEffect(() => {
    if (signedIn) return;
    api.call('getSignInOptions', { signal: AbortSignal.timeout(SIGN_IN_OPTIONS_TIMEOUT_MS) }).then(
      ({ data }) => setSignInOptions(data),
      () => setSignInOptions((known) => known ?? null),
    );
  }, [signedIn, api]);

  const context = useMemo(
    () => (state.status === 'signed-in' ? { api, session: state.session, navigate, signOut: () => store.signOut(api) } : null),
    [state, api, navigate, store],
  );

  if (resumeError)
    return (
      <main class="centered">
        <ErrorMessage error={resumeError} context="The console could not start" />
      </main>
    );
  if (state.status === 'checking' || (state.status === 'signed-out' && signInOptions === undefined))
    return (
      <main class="centered" aria-busy="true">
        <p>Checking your session…</p>
      </main>
    );
  if (state.status === 'signed-out' || !context)
    return (
      <SignInPage
        reason={state.status === 'signed-out' ? state.reason : 'none'}
        detail={state.status === 'signed-out' ? state.detail : undefined}
        oidc={signInOptions?.oidc ?? null}
        onSignIn={(key) => store.signIn(api, key)}
      />
    );
  return (
    <ConsoleContext.Provider value={context}>
      <Shell route={route} />
    </ConsoleContext.Provider>
  );
}
