import { useState } from 'preact/hooks';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field } from '../ui/field.tsx';

const REASONS = {
  none: null,
  expired: 'Your session ended (it expired, or its key was revoked). Sign in again.',
  'signed-out': 'You are signed out.',
} as const;

/**
 * Sign in with an API key. The key is sent once to POST /sessions and then forgotten: the form
 * field is cleared and nothing is stored; from then on the browser holds only the HttpOnly cookie.
 */
export function SignInPage({ reason, onSignIn }: { reason: keyof typeof REASONS; onSignIn: (apiKey: string) => Promise<void> }) {
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const notice = REASONS[reason];

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSignIn(apiKey.trim());
    } catch (failure) {
      setError(failure);
      setBusy(false);
    } finally {
      setApiKey('');
    }
  };

  return (
    <main class="sign-in">
      <h1>OCC console</h1>
      {notice ? <p role="status">{notice}</p> : null}
      <form onSubmit={submit} aria-label="Sign in">
        <Field id="api-key" label="API key" help="An OCC API key (occ_…). It is exchanged for a session cookie and not kept by the page.">
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            value={apiKey}
            onInput={(event) => setApiKey(event.currentTarget.value)}
            aria-describedby="api-key-help"
          />
        </Field>
        {error ? <ErrorMessage error={error} context="Sign-in failed" /> : null}
        <button type="submit" class="button-primary" disabled={busy || apiKey.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="help">
        No key yet? <code>occ up</code> prints the administrator's key on first start; <code>occ keys create</code> makes more.
      </p>
    </main>
  );
}
