/** Plain http is tolerated only where nothing but this machine can listen: a loopback issuer (a test or a local provider). */
export function isLoopbackIssuer(issuer: string): boolean {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The browser comes back from the provider here: register it at the provider as the client's redirect URI. */
export const OIDC_CALLBACK_PATH = '/sign-in/oidc/callback';
/** Where the console's "Sign in with single sign-on" sends the browser. */
export const OIDC_START_PATH = '/sign-in/oidc';

export const redirectUriFor = (publicUrl: string): string => `${publicUrl.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;
/** After the provider's sign-out, the browser returns to the console. */
export const postLogoutUriFor = (publicUrl: string): string => `${publicUrl.replace(/\/+$/, '')}/`;
