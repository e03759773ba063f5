import type { SignInOptions } from '@occ/contracts';
import { useState } from 'preact/hooks';
import type { SignedOutReason } from '../session/session-store.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field } from '../ui/field.tsx';

const REASONS: Record<SignedOutReason, string | null> = {
  none: null,
  expired: 'Your session ended (it expired or was revoked, or your single sign-on access changed). Sign in again.',
  'signed-out': 'You are signed out.',
  'provider-sign-out': 'You are signed out of OCC. Ending your single sign-on session at your identity provider…',
};

/** The identity provider as a person knows it: its host (the issuer's path says nothing to them). */
function providerName(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}

/**
 * Sign in with single sign-on, when the controller has an OpenID provider (GET /sign-in), or with
 * an API key. Single sign-on is a plain link: the browser leaves for the provider and comes back
 * to `/` with the session cookie, which the console then reads (GET /sessions/current). The key
 * is sent once to POST /sessions and then forgotten: the form field is cleared and nothing is
 * stored; from then on the browser holds only the HttpOnly cookie.
 */
export function SignInPage({
  reason,
  detail,
  oidc,
  onSignIn,
}: {
  reason: SignedOutReason;
  /** The controller's words for why the session ended. */
  detail?: string | undefined;
  /** Null: no single sign-on here (or it could not be asked). */
  oidc: SignInOptions['oidc'];
  onSignIn: (apiKey: string) => Promise<void>;
}) {
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
      {notice ? (
        <div role="status" class="notice">
          <p>{notice}</p>
          {detail ? <p class="muted small">OCC said: “{detail}”</p> : null}
        </div>
      ) : null}
      {oidc ? (
        <section class="sign-in-sso" aria-labelledby="sso-heading">
          <h2 id="sso-heading" class="visually-hidden">
            Single sign-on
          </h2>
          <a class="link-button link-button-primary sign-in-sso-button" href={oidc.browserPath}>
            Sign in with single sign-on
          </a>
          <p class="help">
            With your organization's account at <strong>{providerName(oidc.issuer)}</strong>.
          </p>
        </section>
      ) : null}
      <form onSubmit={submit} aria-label="Sign in with an API key">
        {oidc ? <h2 class="sign-in-or">Or with an API key</h2> : null}
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
        <button type="submit" class={oidc ? undefined : 'button-primary'} disabled={busy || apiKey.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="help">
        No key yet? <code>occ up</code> prints the administrator's key on first start; <code>occ keys create</code> makes more.
      </p>
    </main>
  );
}
