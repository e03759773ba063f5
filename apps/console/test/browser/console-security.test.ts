import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { launchChromium } from '../../../../test-support/browser.ts';
import { describeViolations, seriousA11yViolations, signInWithKeyboard, startConsoleOccUp, type OccUp } from './console-world.ts';

// The console's safety rules, in a real browser against a real `occ up` (no deploy): the CSP,
// API values only ever as text, CSRF on mutations, the session cookie's flags, a Secret value
// that never comes back, and a 401 that drops every private view.
const XSS_NAME = '<img src=x onerror=window.__xss=1>';
const SECRET_VALUE = `console-secret-canary-${process.pid}-9c2b`;

let up: OccUp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let ns: string;
/** Every response body the browser received, in order (SSE streams are not buffered: none here). */
const bodies: { url: string; body: string }[] = [];
/** Bodies still being read (a response event fires before its body is there). */
const reading: Promise<void>[] = [];

/** Bodies the browser would not hand over within 10 s (none expected: each would be a blind spot). */
const unread: string[] = [];

async function recordBody(response: Response): Promise<void> {
  const url = `${response.request().method()} ${response.url()}`;
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'gave up'>((resolve) => (timer = setTimeout(() => resolve('gave up'), 10_000)));
  try {
    const body = await Promise.race([response.body(), gaveUp]);
    if (body === 'gave up') unread.push(url);
    else bodies.push({ url: response.url(), body: body.toString('utf8') });
  } catch {
    // A body the browser never kept (a redirect, a document replaced by the next one) holds nothing.
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  [up, browser] = await Promise.all([startConsoleOccUp(), launchChromium()]);
  const namespace = await up.api('POST', '/namespaces', { name: 'security' });
  expect(namespace.status).toBe(201);
  ns = namespace.body.data.id;
  const configuration = await up.api('POST', `/namespaces/${ns}/configurations`, { name: 'plain', values: {} });
  expect(configuration.status).toBe(201);
  const agent = await up.api('POST', `/namespaces/${ns}/agents`, { name: XSS_NAME, configurationId: configuration.body.data.id, harness: 'openclaw' });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.on('response', (response) => void reading.push(recordBody(response)));
  await page.goto(`${up.server}/`);
  await signInWithKeyboard(page, up.adminKey);
});

afterAll(async () => {
  await browser?.close();
  await up?.close();
});

describe('the console against a real occ up: safety', () => {
  it('serves / with a strict Content-Security-Policy (own origin only, no inline script, no eval) and the page cannot run an injected inline script', async () => {
    const response = await fetch(`${up.server}/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');

    // The browser enforces it: an inline <script> added to the page does not run.
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1';
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return (window as unknown as { __inline?: number }).__inline;
    });
    expect(ran).toBeUndefined();
  });

  it('an Agent named like markup renders as text on the Agents page and its own page (no img element, no script ran)', async () => {
    await page.goto(`${up.server}/#/ns/${ns}/agents`);
    await expect.poll(() => page.getByText(XSS_NAME, { exact: true }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await page.locator('main img').count()).toBe(0);

    await page.getByRole('link', { name: XSS_NAME, exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: XSS_NAME, exact: true }).waitFor();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it('a mutation sent from the page without X-CSRF-Token is refused with 403 and changes nothing', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/namespaces', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'csrf-forged' }),
      });
      return { status: response.status, body: await response.json() };
    });
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    const namespaces = await up.api('GET', '/namespaces');
    expect(namespaces.body.data.items.map((n: { name: string }) => n.name)).not.toContain('csrf-forged');
  });

  it('the session cookie is HttpOnly and SameSite=Strict, and page scripts cannot read it', async () => {
    const cookies = await context.cookies(up.server);
    const session = cookies.find((cookie) => cookie.name === 'occ_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    // Plain HTTP on 127.0.0.1 here: Secure is for HTTPS (checked by the API's own tests).
    expect(await page.evaluate(() => document.cookie)).not.toContain('occ_session');
    expect(await page.evaluate(() => document.cookie)).not.toContain(session!.value);
  });

  it('a Secret created in the UI: its value is in no response the browser received and not in the page after submit', async () => {
    await page.goto(`${up.server}/#/ns/${ns}/secrets`);
    const form = page.getByRole('form', { name: /create a secret/i });
    await form.getByLabel('Name', { exact: true }).fill('ui-secret');
    await form.getByLabel('Value', { exact: true }).fill(SECRET_VALUE);
    await form.getByRole('button', { name: 'Create Secret' }).click();
    await page.getByRole('rowheader', { name: 'ui-secret', exact: true }).waitFor();
    // The field was cleared and nothing shows the value.
    expect(await form.getByLabel('Value', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECRET_VALUE);

    const created = await up.api('GET', `/namespaces/${ns}/secrets`);
    expect(created.body.data.items.map((s: { name: string }) => s.name)).toContain('ui-secret');
    // Every body read to its end, then each one looked at.
    await Promise.all(reading);
    expect(unread).toEqual([]);
    expect(bodies.length).toBeGreaterThan(5);
    // Among them the create's own answer and the list read after it.
    expect(bodies.filter(({ url }) => url === `${up.server}/namespaces/${ns}/secrets`).length).toBeGreaterThanOrEqual(2);
    for (const { url, body } of bodies) expect(body, url).not.toContain(SECRET_VALUE);
  });

  it('the Audit page: the log as text, filtered by action and Namespace, errors at the field, no Secret value', async () => {
    await page.goto(`${up.server}/#/audit`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: /audit events/i });
    await table.getByRole('rowheader', { name: 'secrets.create', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit' }).getAttribute('aria-current')).toBe('page');

    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    await filters.getByLabel('Action', { exact: true }).fill('secrets.*');
    await filters.getByLabel('Namespace', { exact: true }).selectOption({ label: 'security' });
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => (await table.getByRole('rowheader').allTextContents()).join(','), { timeout: 15_000 }).toBe('secrets.create');
    // Actor and Namespace by name; the resource by kind and id (an event outlives its resource).
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'secrets.create' }) });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(1, 4)).toEqual(['administrator', 'success', 'security']);
    expect(cells[4]).toMatch(/^secret\/sec_/);
    expect(await page.content()).not.toContain(SECRET_VALUE);
    expect(describeViolations('audit', await seriousA11yViolations(page))).toBe('');

    // A malformed action is named at its field; a time range with nothing in it says so.
    await filters.getByLabel('Action', { exact: true }).fill('secrets.');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('This is not in the expected format.').waitFor();
    expect(await filters.getByLabel('Action', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await filters.getByLabel('Action', { exact: true }).fill('');
    await filters.getByLabel('Since', { exact: true }).fill('2999-01-01T00:00:00');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No event matches these filters.').waitFor();
  });

  it("a key revoked behind the page's back: the next request answers 401, every private view is gone and sign-in shows", async () => {
    const principal = await up.api('POST', '/principals', { kind: 'human', name: 'soon-revoked' });
    expect(principal.status).toBe(201);
    const key = await up.api('POST', `/principals/${principal.body.data.id}/api-keys`, { name: 'console' });
    expect(key.status).toBe(201);
    const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const view = await other.newPage();
      await view.goto(`${up.server}/#/namespaces`);
      await signInWithKeyboard(view, key.body.data.key);
      await view.getByRole('heading', { level: 1, name: 'Namespaces' }).waitFor();

      const revoked = await up.api('DELETE', `/principals/${principal.body.data.id}/api-keys/${key.body.data.apiKey.id}`);
      expect(revoked.status).toBe(204);
      // The page's next request (moving to another section) meets the 401.
      await view.evaluate(() => {
        location.hash = '#/ns/none/agents';
      });
      await view.getByRole('heading', { name: 'OCC console' }).waitFor();
      await view.getByText(/session ended/i).waitFor();
      expect(await view.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
      expect(await view.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
      expect(await view.locator('main#main').count()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
