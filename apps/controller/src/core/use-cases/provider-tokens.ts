import type { ControllerDeps } from '../deps.ts';
import type { ProviderGrant } from '../ports/identity-provider.ts';

/** The provider's tokens a session keeps: the refresh token (to re-read groups) and the ID token (the sign-out hint). */
export interface ProviderTokens {
  refreshToken: string | null;
  idToken: string | null;
}

/** Sealed like a Secret's value, bound to its session: moved to another session's row, it will not open. */
const bindingOf = (sessionId: string) => ({ namespaceId: 'console-session', secretId: sessionId });

export function sealProviderTokens(deps: Pick<ControllerDeps, 'secrets'>, sessionId: string, grant: Pick<ProviderGrant, 'refreshToken' | 'idToken'>): string | null {
  if (!grant.refreshToken && !grant.idToken) return null;
  return deps.secrets.seal(JSON.stringify({ refreshToken: grant.refreshToken, idToken: grant.idToken } satisfies ProviderTokens), bindingOf(sessionId));
}

/** Runs `use` with the session's provider tokens opened (none kept: both null). */
export async function withProviderTokens<T>(
  deps: Pick<ControllerDeps, 'secrets'>,
  sessionId: string,
  sealed: string | null,
  use: (tokens: ProviderTokens) => Promise<T>,
): Promise<T> {
  if (!sealed) return use({ refreshToken: null, idToken: null });
  return deps.secrets.withValue({ driverId: deps.secrets.id, sealedValue: sealed }, bindingOf(sessionId), (json) => use(JSON.parse(json) as ProviderTokens));
}
