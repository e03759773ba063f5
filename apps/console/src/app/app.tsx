import { useEffect, useMemo, useState } from 'preact/hooks';
import { createConsoleApi } from '../api/console-api.ts';
import { SignInPage } from '../pages/sign-in-page.tsx';
import { SessionStore, type SessionState } from '../session/session-store.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { ConsoleContext } from './console-context.ts';
import { Shell } from './shell.tsx';
import { useHashRoute } from './use-hash-route.ts';

/**
 * The console: signed out it shows only the sign-in form; signed in, the shell. Losing the
 * session (a 401 anywhere, or signing out) unmounts the whole signed-in tree, so no private view
 * and none of its data survives it.
 */
export function App() {
  const store = useMemo(() => new SessionStore(), []);
  const api = useMemo(() => createConsoleApi({ csrfToken: () => store.csrfToken, onSessionLost: () => store.lost() }), [store]);
  const [state, setState] = useState<SessionState>(store.state);
  const [resumeError, setResumeError] = useState<unknown>(null);
  const [route, navigate] = useHashRoute();

  useEffect(() => {
    const unsubscribe = store.subscribe(setState);
    store.resume(api).catch(setResumeError);
    return unsubscribe;
  }, [store, api]);

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
  if (state.status === 'checking')
    return (
      <main class="centered" aria-busy="true">
        <p>Checking your session…</p>
      </main>
    );
  if (state.status === 'signed-out' || !context) return <SignInPage reason={state.status === 'signed-out' ? state.reason : 'none'} onSignIn={(key) => store.signIn(api, key)} />;
  return (
    <ConsoleContext.Provider value={context}>
      <Shell route={route} />
    </ConsoleContext.Provider>
  );
}
