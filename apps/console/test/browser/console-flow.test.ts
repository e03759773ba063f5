import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipAfterFirstFailure } from '../../../../test-support/browser.ts';
import { fakePluginItem, startFakeHostedCatalog, type FakeHostedCatalog } from '../../../../test-support/fake-hosted-catalog.ts';
import { scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { describeViolations, screenshotAtWidths, type A11yViolation, seriousA11yViolations, signInWithKeyboard, startConsoleOccUp, tabTo, type OccUp } from './console-world.ts';

// An operator's day in the console, in Debian's chromium against a real `occ up` (embedded PGlite,
// the local ComputeDriver, the real OpenClaw runtime): sign in, a Namespace, a Configuration, an
// OpenClaw Agent with a curated plugin and one tool disabled, a Codex Agent whose picker browses
// the (fake) hosted catalog through a Secret created on the page, ONE real deploy followed live,
// its logs, a rollback admitted as a new revision, sign out. Every page is screenshotted at three
// widths and scanned by axe-core. The CI budget is tight: one occ up, one deploy, one page.
const PAT = `at-console-canary-${randomBytes(12).toString('hex')}`;
const DEPLOY_MS = 240_000;

let hosted: FakeHostedCatalog;
/** The OpenClaw Agent's model: scripted, on a loopback port its confined runtime may reach. */
let model: ScriptedModelServer;
let caDir: string;
let up: OccUp;
let browser: Browser;
let page: Page;
let ns: string;
let helperId: string;
/** Each page's serious or critical axe violations, asserted together at the end (the flow goes on). */
const scanned = new Map<string, A11yViolation[]>();
/** A resource id as the API writes one (`prn_…`, `rev_…`): shown text names things by name or number instead. */
const RESOURCE_ID = /\b(ns|sec|cfg|agt|rev|prn)_[0-9a-f]{8}-/;

async function checkPage(name: string): Promise<void> {
  scanned.set(name, await seriousA11yViolations(page));
  await screenshotAtWidths(page, name);
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  hosted = await startFakeHostedCatalog();
  hosted.accounts.set(PAT, { accountId: 'acct-console' });
  hosted.plugins.push(fakePluginItem('linear'));
  hosted.apps.set('asdk_app_linear', {
    id: 'asdk_app_linear',
    status: 'ENABLED',
    tools: [
      { name: 'get_issue', is_read_only: true },
      { name: 'update_issue', is_read_only: false },
    ],
  });
  caDir = mkdtempSync(join(tmpdir(), 'occ-console-ca-'));
  const caFile = join(caDir, 'ca.pem');
  writeFileSync(caFile, hosted.ca, { mode: 0o600 });
  // The Installation's codex-hosted discovery reads the fake (its CA trusted for discovery only).
  [up, browser] = await Promise.all([
    startConsoleOccUp({
      OCC_CODEX_CATALOG_URL: hosted.catalogBaseUrl,
      OCC_CODEX_IDENTITY_URL: hosted.identityBaseUrl,
      OCC_CODEX_CA_FILE: caFile,
      OCC_LOCAL_SHARED_LOOPBACK_PORTS: new URL(model.baseUrl).port,
    }),
    launchChromium(),
  ]);
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await up?.close();
  await hosted?.close();
  await model?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

skipAfterFirstFailure(() => page);

describe('the console in a real browser against a real occ up', () => {
  it('signs in with the keyboard only, creates a Namespace, and the Agents page becomes interactive', async () => {
    await page.goto(`${up.server}/`);
    await checkPage('sign-in');
    await signInWithKeyboard(page, up.adminKey);

    // Signed in, the console opens the first Namespace's Agents (`occ up` makes `default`).
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    // Who is signed in, by name: the bootstrap administrator, never its principal id.
    await page.getByText('Signed in as administrator').waitFor();
    expect(await page.locator('header').innerText()).not.toMatch(RESOURCE_ID);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Namespaces' }).click();
    await page
      .getByRole('rowheader', { name: 'default' })
      .or(page.getByRole('cell', { name: 'default', exact: true }))
      .first()
      .waitFor();
    await checkPage('namespaces');
    await page.getByRole('form', { name: 'Create a Namespace' }).getByLabel('Name', { exact: true }).fill('console');
    await page.getByRole('button', { name: 'Create Namespace' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await expect.poll(() => page.getByRole('combobox', { name: 'Namespace' }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).toBe('console');
    ns = /#\/ns\/([^/]+)\/agents/.exec(page.url())![1]!;
    // The Namespaces list names them; their ids stay in the addresses.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Namespaces' }).click();
    await page.getByRole('link', { name: 'console', exact: true }).waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(RESOURCE_ID);

    // Time to interactive: from navigation start to the Agents table (or its empty state) shown
    // and the "Create Agent" link able to take focus. From another document: a full load.
    await page.goto('about:blank');
    await page.goto(`${up.server}/#/ns/${ns}/agents`);
    const ready = await page.waitForFunction(
      () => {
        const shown = document.querySelector('table.agents-table') ?? [...document.querySelectorAll('main p')].find((p) => p.textContent?.startsWith('No Agent in this Namespace'));
        const create = [...document.querySelectorAll('a')].find((a) => a.textContent?.trim() === 'Create Agent');
        if (!shown || !create) return false;
        create.focus();
        return document.activeElement === create ? performance.now() : false;
      },
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    console.log(`console TTI agents page: ${Math.round((await ready.jsonValue()) as number)} ms`);
    await checkPage('agents-empty');
  });

  it('creates a Configuration', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Configurations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configurations' }).waitFor();
    await checkPage('configurations-empty');
    await page.getByRole('link', { name: 'New Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'New Configuration' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a Configuration' });
    await form.getByLabel('Name', { exact: true }).fill('base');
    // The scripted model as the Agents' provider, and the gateway's chat endpoint on (the Chat tab talks through it).
    await form.getByLabel('Values (JSON)').fill(JSON.stringify({ ...scriptedModelConfiguration(model), tools: { profile: 'coding', toolSearch: false } }, null, 2));
    await checkPage('configuration-new');
    await form.getByRole('button', { name: 'Create Configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configuration base' }).waitFor();
    await checkPage('configuration');
  });

  it('creates an OpenClaw Agent: the curated llm-task plugin picked in the dialog with the keyboard only, one of its tools disabled', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Create Agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create Agent' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('helper');
    await page.getByLabel('Configuration', { exact: true }).selectOption({ label: 'base' });

    // The picker with the keyboard only: Tab to "Add plugins", Enter; Tab to the search, type,
    // Enter (asks at once); Tab to the plugin's Select, Enter; Escape closes the dialog.
    await page.getByLabel('Configuration', { exact: true }).focus();
    await tabTo(page, /^Add plugins$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add plugins' });
    await dialog.waitFor();
    await tabTo(page, /^picker-query$/);
    await page.keyboard.type('llm');
    await page.keyboard.press('Enter');
    const card = dialog.getByRole('listitem', { name: 'LLM Task' });
    await card.waitFor();
    await checkPage('picker-dialog');
    if (await card.getByRole('button', { name: /Load tools/ }).count()) {
      await tabTo(page, /^Load tools of LLM Task$/);
      await page.keyboard.press('Enter');
    }
    await card.getByRole('button', { name: 'Select LLM Task' }).and(page.locator(':enabled')).waitFor();
    await tabTo(page, /^Select LLM Task$/);
    await page.keyboard.press('Enter');
    await card.getByText('Selected').waitFor();
    // ONE Escape closes the picker, even from the search box with text in it (whose own Escape
    // would clear the text first: it used to take two).
    await tabTo(page, /^picker-query$/, { back: true });
    expect(await page.locator('#picker-query').inputValue()).toBe('llm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 2_000 });

    const selection = page.getByRole('region', { name: 'Plugin LLM Task' });
    await selection.waitFor();
    await selection.getByLabel(/llm-task.*: enabled/i).selectOption('off');
    await checkPage('agent-create');
    await page.getByRole('button', { name: 'Create Agent', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'helper', exact: true }).waitFor();
    helperId = /#\/ns\/[^/]+\/agents\/([^/]+)\//.exec(page.url())![1]!;

    const agent = (await up.api('GET', `/namespaces/${ns}/agents/${helperId}`)).body.data;
    expect(agent).toMatchObject({ harness: 'openclaw', plugins: { 'openclaw:llm-task': { enabled: true } } });
    const tools = agent.plugins['openclaw:llm-task'].tools as Record<string, { enabled?: boolean }>;
    expect(Object.values(tools)).toEqual([expect.objectContaining({ enabled: false })]);
    await checkPage('agent-plugins');
  });

  it('[C-1][C-2][C-7] creates a Codex Agent whose picker browses the hosted catalog through a codex_pat Secret created on the page (page one prefetched, reused by the picker)', async () => {
    await page.goto(`${up.server}/#/ns/${ns}/agents/new`);
    await page.getByRole('heading', { level: 1, name: 'Create Agent' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('coder');
    await page.getByRole('radio', { name: 'Codex' }).check();
    await page.getByLabel('Configuration', { exact: true }).selectOption({ label: 'base' });
    await page.getByRole('button', { name: 'Create new Secret' }).click();
    await page.getByLabel('Secret name').fill('codex-pat');
    await page.getByLabel('Token (write-only)').fill(PAT);
    await page.getByRole('button', { name: 'Save Secret' }).click();
    await expect.poll(() => page.getByLabel('codex_pat Secret').evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).toBe('codex-pat');

    // [C-1] Choosing the Secret fetches page one before the picker is opened; [C-2] opening it
    // reuses that page (no new catalog request).
    const pageRequests = () => hosted.requests.filter((r) => r.path === '/backend-api/ps/plugins/list' || r.path === '/backend-api/ps/plugins/search').length;
    await expect.poll(pageRequests, { timeout: 30_000 }).toBeGreaterThan(0);
    const prefetched = pageRequests();
    await page.getByRole('button', { name: 'Add plugins', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Add plugins' });
    const card = dialog.getByRole('listitem', { name: 'Linear' });
    await card.waitFor();
    expect(pageRequests()).toBe(prefetched);
    // [C-7] A hosted entry is shown as unverified.
    await card.getByText(/Connection: unverified/).waitFor();
    if (await card.getByRole('button', { name: /Load tools/ }).count()) await card.getByRole('button', { name: /Load tools/ }).click();
    await card.getByRole('button', { name: 'Select Linear' }).and(page.locator(':enabled')).click();
    await card.getByText('Selected').waitFor();
    await checkPage('picker-dialog-hosted');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Create Agent', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'coder', exact: true }).waitFor();

    // Discovery asked the hosted service with the Secret's value, which never came back to the page.
    const whoami = hosted.requests.filter((r) => r.path.endsWith('/whoami'));
    expect(whoami.map((r) => r.headers.authorization)).toContain(`Bearer ${PAT}`);
    expect(await page.content()).not.toContain(PAT);
    const agents = (await up.api('GET', `/namespaces/${ns}/agents`)).body.data.items as { name: string; harness: string; plugins: Record<string, unknown>; harnessAuth: unknown }[];
    const coder = agents.find((agent) => agent.name === 'coder')!;
    expect(coder).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat' } });
    expect(Object.keys(coder.plugins)).toEqual([expect.stringContaining('linear')]);
  });

  it('deploys the OpenClaw Agent and follows it live to "succeeded" in the Deployments tab', async () => {
    await page.goto(`${up.server}/#/ns/${ns}/agents/${helperId}/deployments`);
    await page.getByRole('heading', { level: 1, name: 'helper', exact: true }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Deployments' }).waitFor();
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const progress = page.getByRole('region', { name: 'Progress of revision 1' });
    await progress.waitFor();
    // Live: events arrive over the stream while the deploy runs …
    await progress.getByRole('list', { name: 'Deployment events of revision 1' }).getByRole('listitem').first().waitFor({ timeout: 60_000 });
    // … until the outcome.
    const summary = page.getByRole('region', { name: 'Deployment of revision 1' });
    await summary.getByRole('heading', { name: 'Revision 1 succeeded' }).waitFor({ timeout: DEPLOY_MS });
    await progress.getByText(/^Deployment succeeded/).waitFor();
    expect(await progress.getByRole('listitem').count()).toBeGreaterThan(3);
    // The live view says what the serving gateway itself runs: plugins, model providers without tools among them.
    const runtime = page.getByRole('region', { name: 'Runtime of revision 1' });
    await runtime.getByRole('list', { name: 'Loaded plugins' }).getByRole('listitem').first().waitFor({ timeout: 30_000 });
    await runtime
      .getByText(/no tools \(a provider or channel\)/)
      .first()
      .waitFor();
    await runtime.getByText('Scheduled jobs: none').waitFor();
    // The active revision by its number, and no id anywhere in what the page shows.
    const facts = page.locator('dl.facts').first();
    await expect.poll(() => facts.innerText()).toMatch(/Active revision\s+revision 1\b/);
    await summary.getByText('yes: this is the revision the Agent runs').waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(RESOURCE_ID);
    await checkPage('agent-deployments');
  });

  it('shows the runtime log lines in the Logs tab', async () => {
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Logs' }).click();
    const log = page.getByLabel(/^Runtime log of revision 1/);
    await log.waitFor();
    await expect.poll(async () => ((await log.textContent()) ?? '').split('\n').filter(Boolean).length, { timeout: 30_000 }).toBeGreaterThan(0);
    await checkPage('agent-logs');
  });

  it("talks to the Agent in the Chat tab with the keyboard only: the scripted model's reply streams in, and the conversation goes on", async () => {
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Chat' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Chat' }).waitFor();
    await tabTo(page, /^chat-message$/);
    model.enqueue({ kind: 'text', text: 'Hello from the scripted model.' });
    await page.keyboard.type('Hello, helper!');
    await page.keyboard.press('Enter');
    const log = page.getByRole('list', { name: 'Conversation with helper' });
    await log.getByText('Hello from the scripted model.').waitFor({ timeout: 120_000 });
    await page.getByRole('status').getByText('helper replied.').waitFor();
    // Focus is back in the field: the next message, sent with the Send button.
    await page.keyboard.type('And again?');
    await tabTo(page, /^Send$/);
    await page.keyboard.press('Enter');
    await log.getByRole('listitem').nth(1).getByText('scripted answer').waitFor({ timeout: 120_000 });
    // One conversation: the model was sent the first exchange with the second message.
    const history = JSON.stringify(model.completions().at(-1)!.body);
    expect(history).toContain('Hello, helper!');
    expect(history).toContain('Hello from the scripted model.');
    await checkPage('agent-chat');
  });

  it('rolls back from the Revisions tab: an edit not deployed is undone, and revision 1, already running, is not admitted again', async () => {
    const agentUrl = `/namespaces/${ns}/agents/${helperId}`;
    const selected = (await up.api('GET', agentUrl)).body.data.plugins as Record<string, unknown>;
    expect((await up.api('PATCH', agentUrl, { plugins: {} })).status).toBe(200);
    // The Agent's page says what a deploy would change: the edit not deployed yet.
    await page.reload();
    const facts = page.locator('dl.facts');
    await facts.getByText(`Drift: the Agent differs from active revision 1 (plugins removed: ${Object.keys(selected).join(', ')}); Deploy applies it.`).waitFor();
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Revisions' }).click();
    await page.getByRole('heading', { level: 2, name: 'Revision 1' }).waitFor();
    // The revision's facts name who deployed it and its Configuration (its snapshot below stays the raw JSON).
    const revisionFacts = page.getByRole('region', { name: 'Revision 1', exact: true }).locator('dl.facts');
    await revisionFacts.getByText('administrator (you)').waitFor();
    await revisionFacts.getByText(/^base, generation 1/).waitFor();
    expect(await revisionFacts.innerText()).not.toMatch(RESOURCE_ID);
    await checkPage('agent-revisions');
    await page.getByRole('button', { name: 'Roll back to this revision' }).click();
    const confirm = page.getByRole('dialog', { name: 'Roll back' });
    await confirm.getByRole('button', { name: 'Roll back to revision 1' }).click();
    await page.getByRole('status').getByText("Nothing changed: revision 1 already runs. The Agent's settings are revision 1's again.").waitFor();
    const revisions = (await up.api('GET', `${agentUrl}/revisions`)).body.data.items as { revision: number; plugins: unknown }[];
    expect(revisions.map((r) => r.revision)).toEqual([1]);
    expect((await up.api('GET', agentUrl)).body.data.plugins).toEqual(selected);
    await facts.getByText('In sync: revision 1 runs the Agent as it is.').waitFor();

    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Configuration' }).click();
    await page.getByRole('heading', { level: 2, name: 'Configuration' }).waitFor();
    await checkPage('agent-configuration');
  });

  it('the Secrets page shows metadata only; signing out removes every private view and a reload shows sign-in', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('rowheader', { name: 'codex-pat' }).waitFor();
    expect(await page.content()).not.toContain(PAT);
    await checkPage('secrets');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('rowheader', { name: 'helper' }).waitFor();
    const helperRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'helper' }) });
    await helperRow.getByText('revision 1', { exact: true }).first().waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(RESOURCE_ID);
    await checkPage('agents');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'OCC console' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
    expect(await page.getByText('helper').count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'OCC console' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.evaluate(async () => (await fetch('/sessions/current')).status)).toBe(401);
  });

  it('every page scanned by axe-core: no serious or critical violation (screenshots at 1440, 768 and 390 px in test-results/console/)', () => {
    console.log(`console pages scanned and screenshotted: ${[...scanned.keys()].join(', ')}`);
    const report = [...scanned]
      .map(([name, violations]) => describeViolations(name, violations))
      .filter(Boolean)
      .join('\n');
    expect(report).toBe('');
    expect(scanned.size).toBeGreaterThanOrEqual(15);
  });
});
