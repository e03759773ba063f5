// A real OpenID provider (the certified `oidc-provider` package) on loopback, so that OCC's OIDC code
// (openid-client on the other side) meets genuine discovery, PKCE, ID-token signing, refresh, device
// flow, revocation and RP-initiated logout rather than a hand-written imitation. Test support only.
//
// What a browser sees (all plain HTML forms; only the logout page carries a script):
// - sign-in: title "Sign in", `input[name=login]` (a user's sub), `button[type=submit]` "Sign in", and a
//   `a#cancel` link that ends the request with error=access_denied. Consent is never shown: it is granted
//   for everything requested. An OP session cookie persists in the browser, so a second authorization
//   in the same browser context skips the sign-in page (like a real IdP) unless prompt=login is sent.
// - device: `input[name=user_code]` + `button[type=submit]` "Continue", then a confirm page with
//   `button#confirm` "Continue" / `button#abort` "Abort", then sign-in, then a page titled "Device sign-in complete".
// - logout (RP-initiated, /session/end): a "Sign out" page whose form submits itself on load (the
//   `button[name=logout]` "Sign out" is there for script-less clients); it ends the OP session and redirects
//   to post_logout_redirect_uri (with state), or to a "Signed out" page when none was given. Grants made
//   without offline_access are revoked with the session (their refresh tokens stop working); offline_access
//   grants outlive it by design, so an RP that wants its refresh token dead must revoke it. Without an OP
//   session cookie the provider shows its own self-submitting form ("Submitting Callback") instead.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
// @ts-expect-error oidc-provider ships no type declarations (@types/oidc-provider is not installed); the part used is typed below.
import Provider from 'oidc-provider';
// @ts-expect-error Same package: its in-memory store, reused through a custom factory so that the "development-only adapter" warning stays quiet.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { listenOnLoopback, readBody } from './scripted-http.ts';

export interface OidcTestUser {
  sub: string;
  email: string;
  name: string;
  groups: string[];
}
export interface OidcTestProviderOptions {
  users: OidcTestUser[];
  /** The confidential client OCC uses (client_secret_basic; client_secret_post works as well). Empty until setRedirectUris is fine. */
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  idTokenTtlSeconds?: number; // default 300
  /** Issue a new refresh token on every refresh (the old one then counts as replayed). Default false: the same token stays valid. */
  rotateRefreshTokens?: boolean;
  /** The `interval` (seconds) the device authorization response advertises; default 1 (RFC 8628's implied default, 5, slows tests). */
  devicePollIntervalSeconds?: number;
}
export interface OidcTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** A second client (public, PKCE, same redirect URIs): for ID tokens with the wrong audience, signed by hand or obtained for real. */
  otherClientId: string;
  setRedirectUris(redirectUris: string[], postLogoutRedirectUris?: string[]): void;
  setGroups(sub: string, groups: string[]): void;
  disableUser(sub: string): void;
  /** RS256 with the provider's key and kid. Defaults iss, aud (clientId), iat, exp (iat + ID token TTL); `claims` override them (undefined drops one). */
  signIdToken(claims: Record<string, unknown>): Promise<string>;
  /** Rewrites every successful /token response (the client's grants: authorization_code, refresh_token, device_code) until reset with null. */
  rewriteTokenResponses(rewrite: ((body: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>) | null): void;
  /** Headless browser: follows the URL, signs in as `sub`, returns the redirect to the client (code & state, or error) without calling it. */
  completeAuthorization(authorizationUrl: string, sub: string): Promise<string>;
  /** Headless: as completeAuthorization, but the user cancels at the sign-in page (error=access_denied). */
  denyAuthorization(authorizationUrl: string): Promise<string>;
  approveDevice(userCode: string, sub: string): Promise<void>;
  /** Headless: enters the code and clicks "Abort" on the confirm page (before any sign-in, so `sub` is not used). */
  denyDevice(userCode: string, sub: string): Promise<void>;
  /** Headless: opens an end-session URL with the OP session of `sub`'s last headless sign-in (if any), confirms, returns the final redirect URL. */
  completeLogout(endSessionUrl: string, sub?: string): Promise<string>;
  /** Requests per path: '/token', '/token/revocation', '/session/end', '/session/end/confirm', '/device/auth', '/me', '/jwks', '/auth', '/interaction/:uid'… */
  requestCounts(): Record<string, number>;
  close(): Promise<void>;
}

// The slice of oidc-provider (and of the Koa context it is built on) that this file touches.
interface KoaContext {
  method: string;
  path: string;
  status: number;
  body: unknown;
  type: string;
  req: IncomingMessage;
  res: ServerResponse;
  redirect(url: string): void;
  oidc?: { session?: { state?: unknown }; params?: Record<string, unknown> };
}
interface Interaction {
  uid: string;
  prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: Record<string, string | undefined>;
  session?: { accountId?: string };
  grantId?: string;
}
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
interface OidcProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionResult(req: IncomingMessage, res: ServerResponse, result: object, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
  Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
}
const OidcProvider = Provider as new (issuer: string, configuration: Record<string, unknown>) => OidcProviderInstance;
const makeMemoryAdapter = createMemoryAdapter as (clockTolerance: number) => (model: string) => unknown;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const html = (title: string, body: string) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

export async function startOidcProvider(options: OidcTestProviderOptions): Promise<OidcTestProvider> {
  const users = new Map(options.users.map((user) => [user.sub, { ...user, groups: [...user.groups] }]));
  const idTokenTtl = options.idTokenTtlSeconds ?? 300;
  let redirectUris = [...options.redirectUris];
  let postLogoutRedirectUris = [...(options.postLogoutRedirectUris ?? [])];
  let rewrite: Parameters<OidcTestProvider['rewriteTokenResponses']>[0] = null;
  const counts: Record<string, number> = {};
  const sessions = new Map<string, CookieJar>(); // sub → the jar of its last headless sign-in (for completeLogout)
  const clientId = 'occ-test-client';
  const otherClientId = 'occ-other-client';
  const clientSecret = randomBytes(32).toString('base64url');

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

  // The issuer must name the port, so the server listens first and gets its handler afterwards.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  const issuer = `http://127.0.0.1:${await listenOnLoopback(server)}`;

  // Clients come from the adapter, not the static `clients` option: the provider caches static clients for
  // good, while adapter-found ones are re-read on every lookup (cached by content), so redirect URIs can change.
  // A client without redirect URIs is invalid; the placeholder keeps it valid before setRedirectUris.
  const clientMetadata = (id: string): Record<string, unknown> | undefined => {
    const uris = { redirect_uris: redirectUris.length ? redirectUris : [`${issuer}/no-redirect-uri-yet`], post_logout_redirect_uris: postLogoutRedirectUris };
    if (id === clientId) {
      const grant_types = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'];
      return { client_id: clientId, client_secret: clientSecret, token_endpoint_auth_method: 'client_secret_basic', grant_types, ...uris };
    }
    if (id === otherClientId) return { client_id: otherClientId, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], ...uris };
    return undefined;
  };
  const memory = makeMemoryAdapter(15);
  const adapter = (model: string) => (model === 'Client' ? { find: async (id: string) => clientMetadata(id) } : memory(model));

  // Every hook whose default prints a "you SHOULD change it" notice is given here, so a passing run stays silent.
  const provider = new OidcProvider(issuer, {
    adapter,
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] }, // cookies are not `secure` over http (Koa's ctx.secure is false): they work on 127.0.0.1
    // Scope claims go into the ID token itself (by default they would be in userinfo only, as an access token is issued too).
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Read on every call (authorization, every refresh, userinfo): group changes and disabled users show at once.
    findAccount: async (_ctx: unknown, sub: string) => {
      const user = users.get(sub);
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: user.email, email_verified: true, name: user.name, groups: [...user.groups] }) };
    },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: options.rotateRefreshTokens ?? false,
    ttl: { AccessToken: 3600, AuthorizationCode: 60, DeviceCode: 600, IdToken: idTokenTtl, RefreshToken: 14 * 86400, Interaction: 3600, Session: 14 * 86400, Grant: 14 * 86400 },
    clientBasedCORS: () => true,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    renderError: async (ctx: KoaContext, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = html('Error', `<pre id="error">${escapeHtml(`${out.error}: ${out.error_description ?? ''}`)}</pre>`);
    },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: { enabled: false },
      revocation: { enabled: true, allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) => token.clientId === client.clientId },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (ctx: KoaContext, form: string, _out: unknown, error?: { name?: string; message?: string }) => {
          const message = error ? `<p id="error">${escapeHtml(error.name === 'AbortedError' ? 'The sign-in request was aborted.' : (error.message ?? 'error'))}</p>` : '';
          ctx.body = html('Device sign-in', `${message}${form}<button type="submit" form="op.deviceInputForm">Continue</button>`);
        },
        userCodeConfirmSource: async (ctx: KoaContext, form: string, _client: unknown, _info: unknown, userCode: string) => {
          // The form already carries confirm=yes: a named Continue button would send it twice, which the provider rejects.
          const buttons =
            '<button id="confirm" type="submit" form="op.deviceConfirmForm">Continue</button> <button id="abort" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button>';
          ctx.body = html('Confirm device', `<p>Code: <code>${escapeHtml(userCode)}</code></p>${form}${buttons}`);
        },
        successSource: async (ctx: KoaContext) => void (ctx.body = html('Device sign-in complete', '<p>You can close this page.</p>')),
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContext, form: string) => {
          const button = '<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>';
          const script = `<script>document.forms[0].requestSubmit(document.querySelector('button[name=logout]'))</script>`;
          ctx.body = html('Sign out', `${form}${button}${script}`);
        },
        postLogoutSuccessSource: async (ctx: KoaContext) => void (ctx.body = html('Signed out', '')),
      },
    },
  });

  // The interaction pages (the provider only redirects to them) and the test hooks, as Koa middleware.
  provider.use(async (ctx, next) => {
    const path = ctx.path.replace(/^\/(interaction|auth|device)\/(?!auth$)[^/]+/, '/$1/:uid');
    counts[path] = (counts[path] ?? 0) + 1;
    const interaction = /^\/interaction\/([^/]+)(?:\/(login|abort))?$/.exec(ctx.path);
    if (!interaction) {
      await next();
      if (ctx.path === '/token' && ctx.status === 200 && rewrite) ctx.body = await rewrite(ctx.body as Record<string, unknown>);
      // The provider advertises no polling interval; openid-client then waits 5 s before each poll.
      if (ctx.path === '/device/auth' && ctx.status === 200) (ctx.body as Record<string, unknown>).interval = options.devicePollIntervalSeconds ?? 1;
      return;
    }
    try {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      const uid = details.uid;
      const finish = async (result: object) => {
        ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
        ctx.status = 303;
      };
      if (interaction[2] === 'abort') return await finish({ error: 'access_denied', error_description: 'End-User aborted interaction' });
      if (interaction[2] === 'login' && ctx.method === 'POST') {
        const login = new URLSearchParams(await readBody(ctx.req)).get('login') ?? '';
        if (users.has(login)) return await finish({ login: { accountId: login } });
        return void (ctx.body = loginPage(uid, `Unknown user ${login}`));
      }
      if (details.prompt.name === 'login') return void (ctx.body = loginPage(uid));
      // Consent: grant whatever is missing, with no page.
      const accountId = details.session?.accountId ?? '';
      const grant = (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId, clientId: details.params.client_id ?? '' });
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details;
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
      await finish({ consent: { grantId: await grant.save() } });
    } catch (error) {
      ctx.status = 400;
      ctx.body = html('Error', `<pre id="error">${escapeHtml(String(error))}</pre>`);
    }
  });
  const loginPage = (uid: string, error?: string) =>
    html(
      'Sign in',
      `${error ? `<p id="error">${escapeHtml(error)}</p>` : ''}<form method="post" action="/interaction/${uid}/login">` +
        '<label>User <input name="login" autofocus required></label> <button type="submit">Sign in</button></form>' +
        `<p><a id="cancel" href="/interaction/${uid}/abort">Cancel</a></p>`,
    );
  handler = provider.callback();

  // Headless browsing: a cookie jar, redirects followed by hand until they leave for the client.
  const leavesForClient = (url: URL) => url.origin !== issuer || [...redirectUris, ...postLogoutRedirectUris].some((uri) => url.href.startsWith(uri));
  type Page = { url: string; status: number; body: string };
  async function browse(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Page | { redirect: string }> {
    let target = new URL(url);
    let body = form && new URLSearchParams(form);
    for (let hop = 0; hop < 20; hop++) {
      const headers: Record<string, string> = { cookie: jar.header(target), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
      const response = await fetch(target, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' });
      jar.store(target, response);
      const location = response.headers.get('location');
      if (!location || response.status < 300 || response.status >= 400) return { url: target.href, status: response.status, body: await response.text() };
      target = new URL(location, target);
      body = undefined;
      if (leavesForClient(target)) return { redirect: target.href };
    }
    throw new Error(`too many redirects from ${url}`);
  }
  // Submits the page's first form as a browser would: its hidden inputs plus what the user filled in or clicked.
  const submit = (jar: CookieJar, page: Page, fields: Record<string, string>) => {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url} (${page.status}): ${page.body}`);
    const values: Record<string, string> = {};
    for (const [, input = ''] of form[2]!.matchAll(/<input\b([^>]*)>/gi)) {
      const name = attribute(input, 'name');
      if (name !== undefined) values[name] = attribute(input, 'value') ?? '';
    }
    return browse(jar, new URL(attribute(form[1]!, 'action') ?? page.url, page.url).href, { ...values, ...fields });
  };
  const fail = (step: Page | { redirect: string }, expected: string): never => {
    throw new Error(`expected ${expected}, got ${'redirect' in step ? `a redirect to ${step.redirect}` : `${step.url} (${step.status}): ${step.body}`}`);
  };
  async function authorize(authorizationUrl: string, sub: string | undefined): Promise<string> {
    const jar = new CookieJar();
    let step = await browse(jar, authorizationUrl);
    if ('body' in step && step.body.includes('name="login"')) {
      step = sub === undefined ? await browse(jar, `${step.url}/abort`) : await submit(jar, step, { login: sub });
    }
    if (!('redirect' in step)) return fail(step, 'a redirect to the client');
    if (sub !== undefined) sessions.set(sub, jar);
    return step.redirect;
  }
  async function device(userCode: string, sub: string | undefined): Promise<void> {
    const jar = new CookieJar();
    const input = await browse(jar, `${issuer}/device`);
    if ('redirect' in input) return fail(input, 'the code input page');
    const confirm = await submit(jar, input, { user_code: userCode });
    if (!('body' in confirm) || !confirm.body.includes('op.deviceConfirmForm')) return fail(confirm, 'the confirm page');
    let step = await submit(jar, confirm, sub === undefined ? { abort: 'yes' } : {});
    if (sub === undefined) return void ('body' in step && step.body.includes('aborted') ? undefined : fail(step, 'the aborted page'));
    if ('body' in step && step.body.includes('name="login"')) step = await submit(jar, step, { login: sub });
    if (!('body' in step) || !step.body.includes('Device sign-in complete')) return fail(step, 'the device success page');
    sessions.set(sub, jar);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    otherClientId,
    setRedirectUris(uris, postLogoutUris) {
      redirectUris = [...uris];
      if (postLogoutUris) postLogoutRedirectUris = [...postLogoutUris];
    },
    setGroups(sub, groups) {
      const user = users.get(sub);
      if (!user) throw new Error(`no user ${sub}`);
      user.groups = [...groups];
    },
    disableUser: (sub) => void users.delete(sub),
    async signIdToken(claims) {
      const iat = Math.floor(Date.now() / 1000);
      const payload = { iss: issuer, aud: clientId, iat, exp: iat + idTokenTtl, ...claims };
      const input = `${b64(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${b64(JSON.stringify(payload))}`;
      return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
    },
    rewriteTokenResponses: (next) => void (rewrite = next),
    completeAuthorization: (url, sub) => authorize(url, sub),
    denyAuthorization: (url) => authorize(url, undefined),
    approveDevice: (userCode, sub) => device(userCode, sub),
    denyDevice: (userCode) => device(userCode, undefined),
    async completeLogout(endSessionUrl, sub) {
      const jar = (sub && sessions.get(sub)) || new CookieJar();
      const page = await browse(jar, endSessionUrl);
      if ('redirect' in page) return page.redirect;
      const step = await submit(jar, page, { logout: 'yes' });
      if (sub) sessions.delete(sub);
      return 'redirect' in step ? step.redirect : step.url;
    },
    requestCounts: () => ({ ...counts }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const attribute = (tag: string, name: string) => {
  const value = new RegExp(`(?:^|\\s)${name}="([^"]*)"`, 'i').exec(tag)?.[1];
  return value?.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '');
};

/** Just enough of a browser's cookie store for one origin: path-scoped, deletions honoured. */
class CookieJar {
  readonly #cookies = new Map<string, { name: string; path: string; value: string }>();
  header(url: URL): string {
    return [...this.#cookies.values()]
      .filter((c) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
  store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const attr = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attr('path') || url.pathname.replace(/\/[^/]*$/, '') || '/';
      const expires = attr('expires');
      const gone = value === '' || attr('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (gone) this.#cookies.delete(`${name};${path}`);
      else this.#cookies.set(`${name};${path}`, { name, path, value });
    }
  }
}
