import {
  DEFAULT_GROUPS_CLAIM,
  DEFAULT_REFRESH_INTERVAL_SECONDS,
  DEFAULT_SIGN_IN_SCOPES,
  type PutSignInProviderBody,
  type SignInOptions,
  type SignInProvider,
} from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, invalid, notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { OIDC_START_PATH, isLoopbackIssuer, redirectUriFor } from '../iam/sign-in-urls.ts';
import type { IdentityProviderClient } from '../ports/identity-provider.ts';
import type { SignInProviderRecord } from '../ports/sign-in-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { requireSecretReference } from './references.ts';

const notConfigured = () => new OccError('SIGN_IN_NOT_CONFIGURED', 'Single sign-on is not configured here: sign in with an API key.');

const badUrl = (pointer: string, message: string) => invalid(message, [{ path: pointer, code: 'INVALID_FORMAT' }]);

function parsedUrl(value: string, pointer: string): URL {
  try {
    return new URL(value);
  } catch {
    throw badUrl(pointer, 'Not an absolute URL.');
  }
}

/** The issuer as OpenID Discovery reads it: https (plain http only on loopback), no query or fragment. */
function issuerOf(value: string): string {
  const url = parsedUrl(value, '/issuer');
  if (url.search || url.hash || url.username || url.password) throw badUrl('/issuer', 'An issuer URL has no query, fragment or credentials.');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackIssuer(value)))
    throw badUrl('/issuer', 'The issuer must be https (plain http only on a loopback address).');
  // Issuers whose tokens any tenant can mint: every person of every tenant would pass the issuer check.
  if (url.pathname.includes('/.well-known/') || (url.hostname === 'login.microsoftonline.com' && /^\/(common|organizations|consumers)(\/|$)/.test(url.pathname)))
    throw invalid("A multi-tenant issuer admits every tenant's people: give your own tenant's issuer URL.", [{ path: '/issuer', code: 'INVALID_VALUE' }]);
  // Kept as given: an issuer is compared character for character (a trailing slash is part of some).
  return value;
}

/** OCC's public origin: the redirect URI is built from it, so it is an origin and nothing more. */
function publicOriginOf(value: string): string {
  const url = parsedUrl(value, '/publicUrl');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badUrl('/publicUrl', 'The public URL is http or https.');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password)
    throw badUrl('/publicUrl', 'The public URL is an origin only (scheme, host and port): no path, query or fragment.');
  return url.origin;
}

const view = (p: SignInProviderRecord): SignInProvider => ({
  issuer: p.issuer,
  clientId: p.clientId,
  clientSecretId: p.clientSecretId,
  publicUrl: p.publicUrl,
  redirectUri: redirectUriFor(p.publicUrl),
  scopes: p.scopes,
  groupsClaim: p.groupsClaim,
  refreshIntervalSeconds: p.refreshIntervalSeconds,
  updatedAt: p.updatedAt,
});

/** What an audit event keeps of the provider: all of it (the client secret is named by its Secret, never held). */
const auditDetails = (p: SignInProviderRecord) => ({
  issuer: p.issuer,
  clientId: p.clientId,
  clientSecretId: p.clientSecretId,
  publicUrl: p.publicUrl,
  scopes: p.scopes,
  groupsClaim: p.groupsClaim,
  refreshIntervalSeconds: p.refreshIntervalSeconds,
});

/** The provider that vouched for people is gone: their sessions end and what their groups granted goes (it is re-granted at their next sign-in). */
async function endEverySsoAccess(uow: UnitOfWork): Promise<{ sessionsEnded: number; bindingsRemoved: number }> {
  return { sessionsEnded: await uow.sessions.revokeSso(), bindingsRemoved: await uow.iam.deleteAllSignInBindings() };
}

export async function getSignInOptions(deps: ControllerDeps): Promise<SignInOptions> {
  const provider = await deps.state.read((uow) => uow.signIn.getProvider());
  return { apiKey: true, oidc: provider ? { issuer: provider.issuer, browserPath: OIDC_START_PATH } : null };
}

export async function getSignInProvider(deps: ControllerDeps): Promise<SignInProvider> {
  const provider = await deps.state.read((uow) => uow.signIn.getProvider());
  if (!provider) throw notFound('Sign-in provider');
  return view(provider);
}

/**
 * Saves the provider. The client secret must be a Secret nothing else receives (no Agent, no
 * catalog, no SSH host): it is reserved for this use from now on. Changing the issuer or the
 * client ends every single sign-on session (they were signed in by the old one).
 */
export async function putSignInProvider(deps: ControllerDeps, caller: Caller, body: PutSignInProviderBody): Promise<SignInProvider> {
  const issuer = issuerOf(body.issuer);
  const publicUrl = publicOriginOf(body.publicUrl);
  const scopes = [...new Set(body.scopes ?? DEFAULT_SIGN_IN_SCOPES)];
  if (!scopes.includes('openid')) throw invalid('The scopes must include openid.', [{ path: '/scopes', code: 'INVALID_VALUE' }]);
  return deps.state.transact(async (uow) => {
    const namespaceId = await uow.secrets.namespaceOf(body.clientSecretId);
    if (namespaceId === null) throw new OccError('NOT_FOUND', 'Secret not found.', [{ path: '/clientSecretId', code: 'INVALID_VALUE' }]);
    await requireSecretReference(uow, caller, namespaceId, body.clientSecretId, '/clientSecretId', 'sign-in-client-secret');
    const others = (await uow.secrets.referrers(namespaceId, body.clientSecretId, 8)).filter((r) => r.kind !== 'sign-in-provider');
    if (others.length > 0)
      throw invalid('This Secret is already used elsewhere (delivered to Agents or an SSH host key): the client secret must be a Secret nothing else receives.', [
        { path: '/clientSecretId', code: 'REFERENCED_BY' },
      ]);
    const before = await uow.signIn.getProvider();
    const saved = await uow.signIn.putProvider({
      issuer,
      clientId: body.clientId,
      clientSecretNamespaceId: namespaceId,
      clientSecretId: body.clientSecretId,
      publicUrl,
      scopes,
      groupsClaim: body.groupsClaim ?? before?.groupsClaim ?? DEFAULT_GROUPS_CLAIM,
      refreshIntervalSeconds: body.refreshIntervalSeconds ?? DEFAULT_REFRESH_INTERVAL_SECONDS,
    });
    const replaced = before !== null && (before.issuer !== saved.issuer || before.clientId !== saved.clientId);
    const ended = replaced ? await endEverySsoAccess(uow) : { sessionsEnded: 0, bindingsRemoved: 0 };
    await recordAudit(uow, caller, {
      action: 'sign_in_provider.put',
      resource: { kind: 'sign_in_provider', id: 'installation' },
      details: { ...auditDetails(saved), ...ended },
    });
    return view(saved);
  });
}

export async function deleteSignInProvider(deps: ControllerDeps, caller: Caller): Promise<void> {
  await deps.state.transact(async (uow) => {
    const removed = await uow.signIn.deleteProvider();
    if (!removed) throw notFound('Sign-in provider');
    const ended = await endEverySsoAccess(uow);
    await recordAudit(uow, caller, {
      action: 'sign_in_provider.delete',
      resource: { kind: 'sign_in_provider', id: 'installation' },
      details: { ...auditDetails(removed), ...ended },
    });
  });
}

/**
 * Runs `use` with the provider as the IdentityProvider port takes it, its client secret opened
 * for this call only. No provider configured → SIGN_IN_NOT_CONFIGURED.
 */
export async function withIdentityProvider<T>(deps: ControllerDeps, use: (client: IdentityProviderClient, provider: SignInProviderRecord) => Promise<T>): Promise<T> {
  const found = await deps.state.read(async (uow) => {
    const provider = await uow.signIn.getProvider();
    if (!provider) return null;
    const secret = await uow.secrets.get(provider.clientSecretNamespaceId, provider.clientSecretId);
    return secret ? { provider, secret } : null;
  });
  if (!found) throw notConfigured();
  const { provider, secret } = found;
  return deps.secrets.withValue(secret, { namespaceId: provider.clientSecretNamespaceId, secretId: provider.clientSecretId }, (clientSecret) =>
    use({ issuer: provider.issuer, clientId: provider.clientId, clientSecret, redirectUri: redirectUriFor(provider.publicUrl), scopes: provider.scopes }, provider),
  );
}
