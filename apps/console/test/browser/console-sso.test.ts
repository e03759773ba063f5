import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, skipAfterFirstFailure } from '../../../../test-support/browser.ts';
import { startOidcProvider, type OidcTestProvider } from '../../../../test-support/oidc-provider.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/test-database.ts';
import { describeViolations, screenshotAtWidths, type A11yViolation, seriousA11yViolations, startConsoleOccUp, type OccUp } from './console-world.ts';

// Single sign-on in the console, in Debian's chromium against a real `occ up` (on PostgreSQL, so
// the test can make a session due for its group refresh) and a real OpenID provider
// (test-support/oidc-provider.ts): Alice of team-a signs in at the provider's page and sees
// team-a's Agent and nothing of team-b; signing out ends the provider's session too; removed
// from team-a, her next request ends the session and the console says so; Bob, in no admitted
// group, meets the controller's refusal page.
//
// The console is reached at http://localhost:PORT while the provider is http://127.0.0.1:PORT:
// two sites, so the provider's redirect back to the callback is a cross-site navigation, as
// with a real identity provider. The occ_session cookie (SameSite=Strict) set on that answer is
// then not sent with the document request of the `/` it redirects to — but it is with the
// console's own same-origin requests, which is all the console needs.

let idp: OidcTestProvider;
let database: TestDatabase;
let up: OccUp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** OCC as the browser reaches it (and as the provider knows it): localhost, not 127.0.0.1. */
let origin: string;
let teamA: string;
let teamB: string;
const scanned = new Map<string, A11yViolation[]>();

async function checkPage(name: string): Promise<void> {
  scanned.set(name, await seriousA11yViolations(page));
  await screenshotAtWidths(page, name);
}

async function created(path: string, body: unknown): Promise<string> {
  const res = await up.api('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}

/** A Namespace with a Configuration and one Agent in it (not deployed). */
async function teamWithAgent(namespace: string, agent: string): Promise<string> {
  const ns = await created('/namespaces', { name: namespace });
  const configurationId = await created(`/namespaces/${ns}/configurations`, { name: `${namespace}-base`, values: {} });
  await created(`/namespaces/${ns}/agents`, { name: agent, configurationId, harness: 'openclaw' });
  return ns;
}

/** Every single sign-on session is due for its refresh now (the shortest interval is 60 s). */
async function dueForRefresh(): Promise<void> {
  const updated = await database.db.query('UPDATE console_sessions SET refresh_due_at = now() WHERE issuer IS NOT NULL AND revoked_at IS NULL');
  expect(updated.rowCount).toBeGreaterThan(0);
}

const sessionStatus = (view: Page) => view.evaluate(async () => (await fetch('/sessions/current', { credentials: 'same-origin' })).status);

/** The provider's sign-in page: the user's name in `login`, then its "Sign in" button. */
async function signInAtProvider(view: Page, sub: string): Promise<void> {
  await view.waitForURL((url) => url.origin === idp.issuer);
  await view.getByRole('heading', { name: 'Sign in' }).waitFor();
  await view.locator('input[name=login]').fill(sub);
  await view.getByRole('button', { name: 'Sign in' }).click();
}

/** Resolves once the page has had no request in flight for half a second. */
async function quiet(view: Page): Promise<void> {
  const inFlight = new Set<unknown>();
  const start = (request: unknown) => inFlight.add(request);
  const stop = (request: unknown) => inFlight.delete(request);
  view.on('request', start);
  view.on('requestfinished', stop);
  view.on('requestfailed', stop);
  try {
    await expect
      .poll(
        async () => {
          const before = inFlight.size;
          await new Promise((resolve) => setTimeout(resolve, 500));
          return before + inFlight.size;
        },
        { timeout: 15_000 },
      )
      .toBe(0);
  } finally {
    view.off('request', start);
    view.off('requestfinished', stop);
    view.off('requestfailed', stop);
  }
}

beforeAll(async () => {
  idp = await startOidcProvider({
    users: [
      { sub: 'alice', email: 'alice@example.com', name: 'Alice', groups: ['team-a'] },
      { sub: 'bob', email: 'bob@example.com', name: 'Bob', groups: ['other'] },
    ],
    redirectUris: [],
  });
  database = await createTestDatabase();
  if (!database.connectionString) throw new Error('This test needs PostgreSQL (OCC_TEST_DB=postgres: the e2e project).');
  [up, browser] = await Promise.all([startConsoleOccUp({ DATABASE_URL: database.connectionString }), launchChromium()]);
  origin = up.server.replace('//127.0.0.1:', '//localhost:');

  teamA = await teamWithAgent('team-a', 'alpha-agent');
  teamB = await teamWithAgent('team-b', 'bravo-agent');
  // The client secret, in a Secret of the administrator's own Namespace.
  const namespaces = (await up.api('GET', '/namespaces')).body.data.items as { id: string; name: string }[];
  const home = namespaces.find((n) => n.name === 'default')!.id;
  const clientSecretId = await created(`/namespaces/${home}/secrets`, { name: 'sso-client-secret', value: idp.clientSecret });
  const provider = await up.api('PUT', '/sign-in/provider', {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecretId,
    publicUrl: origin,
    scopes: ['openid', 'profile', 'email', 'offline_access', 'groups'],
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(200);
  expect(provider.body.data.redirectUri).toBe(`${origin}/sign-in/oidc/callback`);
  idp.setRedirectUris([provider.body.data.redirectUri], [`${origin}/`]);
  const roleId = await created('/iam/roles', {
    name: 'team-reader',
    permissions: (['namespace', 'agent', 'agent_revision', 'configuration', 'secret'] as const).map((resourceKind) => ({ action: 'read', resourceKind })),
  });
  await created('/iam/sign-in-rules', { claim: 'groups', value: 'team-a', roleId, namespaceId: teamA });

  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await up?.close();
  await database?.cleanup();
  await idp?.close();
});

skipAfterFirstFailure(() => page);

describe('single sign-on in the console, against a real OpenID provider', () => {
  it('offers "Sign in with single sign-on" above the API-key form, as a link to /sign-in/oidc', async () => {
    await page.goto(`${origin}/`);
    const sso = page.getByRole('link', { name: 'Sign in with single sign-on' });
    await sso.waitFor();
    expect(await sso.getAttribute('href')).toBe('/sign-in/oidc');
    // Above the API-key form, which stays.
    const keyField = page.getByLabel('API key', { exact: true });
    await keyField.waitFor();
    const before = await sso.evaluate((link, field) => Boolean(link.compareDocumentPosition(field!) & Node.DOCUMENT_POSITION_FOLLOWING), await keyField.elementHandle());
    expect(before).toBe(true);
    await page.getByText(new URL(idp.issuer).host).waitFor();
    await checkPage('sign-in-sso');
  });

  it('Alice signs in at the provider and lands in the console with team-a’s Agent, and nothing of team-b', async () => {
    const sessionReads: { status: number; cookie: boolean }[] = [];
    const documents: { url: string; cookie: boolean }[] = [];
    page.on('response', async (response) => {
      const request = response.request();
      const cookie = ((await request.allHeaders().catch(() => ({}) as Record<string, string>)).cookie ?? '').includes('occ_session=');
      if (request.url() === `${origin}/sessions/current`) sessionReads.push({ status: response.status(), cookie });
      if (request.url() === `${origin}/` && request.resourceType() === 'document') documents.push({ url: request.url(), cookie });
    });

    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await signInAtProvider(page, 'alice');
    // Back through the callback to the console, which reads the session the cookie holds.
    await page.waitForURL((url) => url.origin === origin && !url.pathname.startsWith('/sign-in'));
    await page.getByText('Signed in as alice@example.com').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await page.getByRole('rowheader', { name: 'alpha-agent' }).waitFor();
    expect(page.url()).toBe(`${origin}/#/ns/${teamA}/agents`);

    // The cookie came through the cross-site chain, and the console's same-origin reads carry it.
    const cookies = await context.cookies(origin);
    expect(cookies.find((c) => c.name === 'occ_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(sessionReads.at(-1)).toEqual({ status: 200, cookie: true });
    console.log(`after the callback's 303: the document GET / carried the session cookie: ${documents.at(-1)?.cookie}; GET /sessions/current did: ${sessionReads.at(-1)?.cookie}`);
    expect(await sessionStatus(page)).toBe(200);

    // Team-b is nowhere: not in the switcher, not on the Namespaces page, its Agent unreadable.
    expect(await page.locator('body').innerText()).not.toMatch(/team-b|bravo-agent/);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Namespaces' }).click();
    await page.getByRole('link', { name: 'team-a', exact: true }).waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/team-b|bravo-agent|\bdefault\b/);
    const peek = await page.evaluate(async (ns) => (await fetch(`/namespaces/${ns}/agents`, { credentials: 'same-origin' })).status, teamB);
    expect(peek).toBe(404);
    await checkPage('namespaces-sso');
  });

  it('signing out ends the provider’s session too: to its sign-out page and back to the console, signed out', async () => {
    const before = idp.requestCounts()['/session/end'] ?? 0;
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider's page submits itself and sends the browser back to the console.
    await page.waitForURL((url) => url.origin === origin && url.pathname === '/', { timeout: 30_000 });
    await page.getByRole('heading', { name: 'OCC console' }).waitFor();
    await page.getByRole('status').getByText('You are signed out.').waitFor();
    expect(idp.requestCounts()['/session/end'] ?? 0).toBeGreaterThan(before);
    expect(idp.requestCounts()['/session/end/confirm'] ?? 0).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await sessionStatus(page)).toBe(401);
    expect((await context.cookies(origin)).find((c) => c.name === 'occ_session')).toBeUndefined();

    // The provider's own session ended too: single sign-on asks who you are again.
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await signInAtProvider(page, 'alice');
    await page.getByText('Signed in as alice@example.com').waitFor();
    await page.getByRole('rowheader', { name: 'alpha-agent' }).waitFor();
  });

  it('removed from team-a: at the next refresh a reload shows the sign-in page, saying the session ended and why, and nothing of team-a', async () => {
    idp.setGroups('alice', []);
    await dueForRefresh();
    await page.reload();
    await page.getByRole('heading', { name: 'OCC console' }).waitFor();
    const notice = page.getByRole('status');
    await notice.getByText(/Your session ended/).waitFor();
    await notice.getByText(/No sign-in rule admits you any more/).waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/alpha-agent|team-a|Signed in as/);
    expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
    expect(await sessionStatus(page)).toBe(401);
    await checkPage('sign-in-sso-ended');
    // Said once: the next reload is the plain sign-in page.
    await page.reload();
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).waitFor();
    expect(await page.getByRole('status').count()).toBe(0);
  });

  it('removed again while the console is open: its next request ends the session, and the console goes back to sign-in with the same words', async () => {
    idp.setGroups('alice', ['team-a']);
    // The provider still knows Alice (her session there is alive): no sign-in page this time.
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.getByText('Signed in as alice@example.com').waitFor();
    await page.getByRole('rowheader', { name: 'alpha-agent' }).waitFor();
    // On a page that asks nothing more once shown, so that the click below makes the one request
    // that meets the refresh (a request still in flight meanwhile could take the refresh and,
    // cancelled by the page, never show its 401 to the console).
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Namespaces' }).click();
    await page.getByRole('link', { name: 'team-a', exact: true }).waitFor();
    await quiet(page);

    idp.setGroups('alice', []);
    await dueForRefresh();
    await page.getByRole('link', { name: 'team-a', exact: true }).click();
    await page.getByRole('heading', { name: 'OCC console' }).waitFor();
    const notice = page.getByRole('status');
    await notice.getByText(/Your session ended/).waitFor();
    await notice.getByText(/No sign-in rule admits you any more/).waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/alpha-agent|team-a|Signed in as/);
    expect(await page.locator('main#main').count()).toBe(0);
  });

  it('Bob, in no admitted group, is shown the refusal page, and its link leads back to the console, signed out', async () => {
    const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const view = await other.newPage();
      await view.goto(`${origin}/`);
      await view.getByRole('link', { name: 'Sign in with single sign-on' }).click();
      await signInAtProvider(view, 'bob');
      await view.waitForURL((url) => url.origin === origin && url.pathname === '/sign-in/oidc/callback');
      await view.getByRole('heading', { level: 1, name: 'Sign-in refused' }).waitFor();
      expect(await view.getByRole('alert').innerText()).toMatch(/no sign-in rule admits you/i);
      expect((await other.cookies(origin)).find((c) => c.name === 'occ_session')).toBeUndefined();
      await view.getByRole('link', { name: 'Back to the OCC console' }).click();
      await view.getByRole('link', { name: 'Sign in with single sign-on' }).waitFor();
      expect(await sessionStatus(view)).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('every page scanned by axe-core: no serious or critical violation', () => {
    const report = [...scanned]
      .map(([name, violations]) => describeViolations(name, violations))
      .filter(Boolean)
      .join('\n');
    expect(report).toBe('');
    expect(scanned.size).toBe(3);
  });
});
