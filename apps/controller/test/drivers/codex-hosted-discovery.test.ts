import { PluginCatalogEntrySchema, PluginCatalogPageSchema, type PluginCatalogEntry, type PluginCatalogPage } from '@occ/contracts';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PluginDiscoveryError, type PluginDiscovery, type PluginDiscoveryFailure } from '../../src/core/ports/plugin-driver.ts';
import { codexHostedDiscoveryOptionsFromEnv, createCodexHostedDriver } from '../../src/drivers/plugin/codex-hosted/index.ts';
import { UNAVAILABLE } from '../../src/drivers/plugin/codex-hosted/hosted-entries.ts';
import { fakePluginItem, startFakeHostedCatalog, type FakeHostedCatalog, type FakeRoute, type Misbehaviour } from '../../../../test-support/fake-hosted-catalog.ts';

const PAT_A = 'at-alpha.Token_0123456789';
const PAT_B = 'at-bravo.Token_9876543210';
const PAT_FED = 'at-fedramp.Token_555';
const DEADLINE_MS = 1_500;

let fake: FakeHostedCatalog;
let discovery: PluginDiscovery;

const signal = () => new AbortController().signal;
const list = (credential: string | undefined, q?: string, cursor?: string) => discovery.listCatalog({ credential, q, cursor }, signal());
const details = (credential: string | undefined, pluginId: string) => discovery.getCatalogPlugin({ credential, pluginId }, signal());

/** The reason a discovery call failed with; also checks the error carries nothing upstream sent. */
async function failure(call: Promise<unknown>, ...forbidden: string[]): Promise<PluginDiscoveryFailure> {
  const error = await call.then(
    () => expect.unreachable('discovery succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginDiscoveryError);
  const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack ?? ''}`;
  for (const value of [...forbidden, 'upstream says no', 'internal detail']) expect(text).not.toContain(value);
  expect((error as Error).cause).toBeUndefined();
  return (error as PluginDiscoveryError).reason;
}

async function allPages(credential: string, q?: string): Promise<PluginCatalogPage[]> {
  const pages: PluginCatalogPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(credential, q, cursor);
    expect(Value.Check(PluginCatalogPageSchema, page)).toBe(true);
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 20);
  return pages;
}

const catalogRequests = () => fake.requests.filter((r) => r.path.startsWith('/backend-api/'));

beforeAll(async () => {
  fake = await startFakeHostedCatalog();
  discovery = createCodexHostedDriver({
    discovery: { catalogBaseUrl: fake.catalogBaseUrl, identityBaseUrl: fake.identityBaseUrl, ca: fake.ca, deadlineMs: DEADLINE_MS },
  }).discovery!;
});

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.plugins.length = 0;
  fake.apps.clear();
  fake.accounts.clear();
  fake.behave();
  fake.accounts.set(PAT_A, { accountId: 'acct-alpha' });
  fake.accounts.set(PAT_B, { accountId: 'acct-bravo' });
  fake.accounts.set(PAT_FED, { accountId: 'acct-fed', fedramp: true });
});

describe('codex-hosted driver', () => {
  it('keeps its policy surface and offers discovery with a codex_pat', () => {
    const driver = createCodexHostedDriver();
    expect(driver.id).toBe('codex-hosted');
    expect(driver.validatePolicies({ 'codex:linear@openai-curated-remote': { enabled: true } })).toEqual([]);
    expect(driver.discovery?.credential).toBe('codex_pat');
    expect(createCodexHostedDriver({ discovery: false }).discovery).toBeUndefined();
    expect(() => createCodexHostedDriver({ discovery: { catalogBaseUrl: 'http://chatgpt.com/backend-api/' } })).toThrow(/https/u);
  });

  it('reads its discovery options from the environment', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(codexHostedDiscoveryOptionsFromEnv({ OCC_CODEX_CATALOG_URL: 'https://proxy.example.test/backend-api', OCC_DISCOVERY_CURSOR_KEY: key })).toEqual({
      catalogBaseUrl: 'https://proxy.example.test/backend-api',
      cursorKey: Buffer.alloc(32, 7),
    });
    expect(codexHostedDiscoveryOptionsFromEnv({})).toEqual({});
    expect(() => codexHostedDiscoveryOptionsFromEnv({ OCC_DISCOVERY_CURSOR_KEY: 'c2hvcnQ=' })).toThrow(/32 bytes/u);
  });

  it('opens a cursor on another replica that shares the cursor key', async () => {
    for (let i = 0; i < 25; i++) fake.plugins.push(fakePluginItem(`p${i}`));
    const options = { catalogBaseUrl: fake.catalogBaseUrl, identityBaseUrl: fake.identityBaseUrl, ca: fake.ca, cursorKey: Buffer.alloc(32, 9) };
    const one = createCodexHostedDriver({ discovery: options }).discovery!;
    const two = createCodexHostedDriver({ discovery: options }).discovery!;
    const cursor = (await one.listCatalog({ credential: PAT_A }, signal())).nextCursor!;
    expect((await two.listCatalog({ credential: PAT_A, cursor }, signal())).plugins).toHaveLength(5);
  });
});

describe('hosted discovery: paging and search', () => {
  it('[D-14] hydrates identity from the PAT and pages GLOBAL entries with opaque cursors', async () => {
    for (let i = 0; i < 45; i++) fake.plugins.push(fakePluginItem(`plugin${String(i).padStart(2, '0')}`));
    const pages = await allPages(PAT_A);

    expect(pages.map((p) => p.plugins.length)).toEqual([20, 20, 5]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    const entries = pages.flatMap((p) => p.plugins);
    expect(entries.map((e) => e.id)).toEqual(fake.plugins.map((p) => `codex:${p.name}@openai-curated-remote`));
    expect(entries[0]).toEqual({
      id: 'codex:plugin00@openai-curated-remote',
      name: 'Plugin00',
      remoteId: 'plugin_asdk_app_plugin00',
      description: 'Work with plugin00.',
      logoUrl: 'https://cdn.example.test/plugin00.png',
      websiteUrl: 'https://plugin00.example.test/',
      privacyPolicyUrl: 'https://plugin00.example.test/privacy',
      termsOfServiceUrl: 'https://plugin00.example.test/terms',
      available: true,
      selectableWithoutTools: true,
      tools: null,
    });
    for (const page of pages.slice(0, -1)) {
      expect(page.nextCursor).not.toMatch(/page-/u);
    }

    const whoami = fake.requests.filter((r) => r.path === '/api/accounts/v1/user-auth-credential/whoami');
    expect(whoami).toHaveLength(3);
    expect(whoami[0]!.headers.authorization).toBe(`Bearer ${PAT_A}`);
    const calls = catalogRequests();
    expect(calls.map((r) => r.query)).toEqual([
      { scope: 'GLOBAL', limit: '20' },
      { scope: 'GLOBAL', limit: '20', pageToken: 'page-20' },
      { scope: 'GLOBAL', limit: '20', pageToken: 'page-40' },
    ]);
    for (const call of calls) {
      expect(call.path).toBe('/backend-api/ps/plugins/list');
      expect(call.headers.authorization).toBe(`Bearer ${PAT_A}`);
      expect(call.headers['chatgpt-account-id']).toBe('acct-alpha');
      expect(call.headers['oai-product-sku']).toBe('codex');
      expect(call.headers['x-openai-fedramp']).toBeUndefined();
    }
  });

  it('[D-14] sends X-OpenAI-Fedramp only for a FedRAMP account', async () => {
    fake.plugins.push(fakePluginItem('linear'));
    const page = await list(PAT_FED);
    expect(page.plugins).toHaveLength(1);
    const call = catalogRequests()[0]!;
    expect(call.headers['chatgpt-account-id']).toBe('acct-fed');
    expect(call.headers['x-openai-fedramp']).toBe('true');
  });

  it('[D-14] searches with q and pages the search results', async () => {
    for (let i = 0; i < 30; i++) fake.plugins.push(fakePluginItem(`alpha${String(i).padStart(2, '0')}`));
    for (let i = 0; i < 5; i++) fake.plugins.push(fakePluginItem(`beta${i}`));
    const pages = await allPages(PAT_A, '  Alpha ');
    expect(pages.map((p) => p.plugins.length)).toEqual([20, 10]);
    expect(pages.flatMap((p) => p.plugins).every((e) => e.id.startsWith('codex:alpha'))).toBe(true);
    const calls = catalogRequests();
    expect(calls.map((r) => [r.path, r.query])).toEqual([
      ['/backend-api/ps/plugins/search', { scope: 'GLOBAL', limit: '20', q: 'Alpha' }],
      ['/backend-api/ps/plugins/search', { scope: 'GLOBAL', limit: '20', q: 'Alpha', pageToken: 'page-20' }],
    ]);
  });

  it('[D-14] refuses a cursor issued for another query or another credential, before any request', async () => {
    for (let i = 0; i < 25; i++) fake.plugins.push(fakePluginItem(`alpha${String(i).padStart(2, '0')}`));
    const listCursor = (await list(PAT_A)).nextCursor!;
    const searchCursor = (await list(PAT_A, 'alpha')).nextCursor!;
    expect(listCursor).toBeTruthy();
    expect(searchCursor).toBeTruthy();
    fake.requests.length = 0;

    expect(await failure(list(PAT_A, 'alpha', listCursor))).toBe('invalid_cursor');
    expect(await failure(list(PAT_A, undefined, searchCursor))).toBe('invalid_cursor');
    expect(await failure(list(PAT_A, 'alpha2', searchCursor))).toBe('invalid_cursor');
    expect(await failure(list(PAT_B, undefined, listCursor))).toBe('invalid_cursor');
    expect(await failure(list(PAT_B, 'alpha', searchCursor))).toBe('invalid_cursor');
    expect(await failure(list(PAT_A, undefined, `${listCursor.slice(0, -2)}AA`))).toBe('invalid_cursor');
    expect(await failure(list(PAT_A, undefined, 'page-20'))).toBe('invalid_cursor');
    // A cursor from another process (another key) does not open either.
    const other = createCodexHostedDriver({ discovery: { catalogBaseUrl: fake.catalogBaseUrl, identityBaseUrl: fake.identityBaseUrl, ca: fake.ca } }).discovery!;
    expect(await failure(other.listCatalog({ credential: PAT_A, cursor: listCursor }, signal()))).toBe('invalid_cursor');
    expect(fake.requests).toEqual([]);

    // The right query and credential still page on.
    expect((await list(PAT_A, 'alpha', searchCursor)).plugins).toHaveLength(5);
  });

  it('[D-14] offers GLOBAL catalog entries only, dropping items that are no selection key', async () => {
    fake.plugins.push(
      fakePluginItem('good'),
      fakePluginItem('workspace', { scope: 'WORKSPACE' }),
      fakePluginItem('user', { scope: 'USER' }),
      fakePluginItem('-bad-slug'),
      fakePluginItem('bad slug'),
      fakePluginItem('x'.repeat(201)),
      fakePluginItem('policy', { installation_policy: 'SOMETIMES' }),
      fakePluginItem('weirdid', { id: '../../admin' }),
      fakePluginItem('good', { id: 'plugin_duplicate' }),
    );
    const page = await list(PAT_A);
    expect(page.plugins.map((e) => [e.id, e.remoteId])).toEqual([['codex:good@openai-curated-remote', 'plugin_asdk_app_good']]);
  });

  it('[D-6] maps unavailable plugins to fixed sentences and never echoes upstream reason text', async () => {
    fake.plugins.push(
      fakePluginItem('admin', { status: 'DISABLED', disabled_reason: 'disabled_by_admin' }),
      fakePluginItem('plan', { status: 'DISABLED', disabled_reason: 'plan_not_eligible' }),
      fakePluginItem('needsapp', { status: 'DISABLED', disabled_reason: 'required_app_unavailable' }),
      fakePluginItem('mystery', { status: 'DISABLED', disabled_reason: 'Call Bob at 555-0100 <script>' }),
      fakePluginItem('notavail', { installation_policy: 'NOT_AVAILABLE' }),
      fakePluginItem('local', { requires_local_executor: undefined }),
      fakePluginItem('localtrue', { requires_local_executor: true }),
      fakePluginItem('noapps', { release: { app_ids: [] } }),
      fakePluginItem('scheduled', { release: { scheduled_tasks: [{ name: 'nightly' }] } }),
      fakePluginItem('mcp', { release: { mcp_servers: [{ name: 'stray', app_id: 'asdk_app_other' }] } }),
      fakePluginItem('mcpok', { release: { mcp_servers: [{ name: 'ok', app_id: 'asdk_app_mcpok' }] } }),
      fakePluginItem('default', { installation_policy: 'INSTALLED_BY_DEFAULT' }),
    );
    const page = await list(PAT_A);
    expect(Value.Check(PluginCatalogPageSchema, page)).toBe(true);
    const reasons = Object.fromEntries(page.plugins.map((e) => [e.id.slice('codex:'.length).split('@')[0], e.available ? 'available' : e.unavailableReason]));
    expect(reasons).toEqual({
      admin: UNAVAILABLE.disabled_by_admin,
      plan: UNAVAILABLE.plan_not_eligible,
      needsapp: UNAVAILABLE.required_app_unavailable,
      mystery: UNAVAILABLE.disabled,
      notavail: UNAVAILABLE.disabled,
      local: UNAVAILABLE.localExecutor,
      localtrue: UNAVAILABLE.localExecutor,
      noapps: UNAVAILABLE.noApps,
      scheduled: UNAVAILABLE.unsupportedRelease,
      mcp: UNAVAILABLE.unsupportedRelease,
      mcpok: 'available',
      default: 'available',
    });
    expect(JSON.stringify(page)).not.toContain('Bob');
    for (const entry of page.plugins) expect(entry.selectableWithoutTools).toBe(entry.available ? true : undefined);
  });

  it('[D-6] keeps only public https links and logos, without touching availability', async () => {
    const iface = (overrides: Record<string, unknown>) => ({
      release: { interface: { short_description: 'x', ...overrides } },
    });
    fake.plugins.push(
      fakePluginItem('plainhttp', iface({ website_url: 'http://example.test/', logo_url: 'https://cdn.example.test/a.png' })),
      fakePluginItem('userinfo', iface({ website_url: 'https://user:pw@example.test/', privacy_policy_url: 'https://tok@example.test/' })),
      fakePluginItem('spaces', iface({ website_url: 'https://exa mple.test/', terms_of_service_url: 'https://example.test/\nx' })),
      fakePluginItem('script', iface({ website_url: 'javascript:alert(1)', logo_url: 'data:image/png;base64,AAAA', composer_icon_url: 'https://cdn.example.test/icon.png' })),
      fakePluginItem('long', iface({ website_url: `https://example.test/${'a'.repeat(8200)}`, logo_url: 42 })),
      fakePluginItem('upper', iface({ website_url: 'HTTPS://Example.TEST/Path' })),
    );
    const page = await list(PAT_A);
    expect(Value.Check(PluginCatalogPageSchema, page)).toBe(true);
    const links = Object.fromEntries(page.plugins.map((e) => [e.name, [e.available, e.websiteUrl, e.privacyPolicyUrl, e.termsOfServiceUrl, e.logoUrl]]));
    expect(links).toEqual({
      Plainhttp: [true, undefined, undefined, undefined, 'https://cdn.example.test/a.png'],
      Userinfo: [true, undefined, undefined, undefined, undefined],
      Spaces: [true, undefined, undefined, undefined, undefined],
      Script: [true, undefined, undefined, undefined, 'https://cdn.example.test/icon.png'],
      Long: [true, undefined, undefined, undefined, undefined],
      Upper: [true, 'https://example.test/Path', undefined, undefined, undefined],
    });
  });
});

describe('hosted discovery: details', () => {
  it('[D-14] lists tools from apps/batch, sorted, owned by their app, without download URLs', async () => {
    fake.plugins.push(
      fakePluginItem('linear', {
        release: {
          app_ids: ['asdk_app_ignored'],
          app_manifest: { apps: [{ id: 'asdk_app_linear' }, { id: 'asdk_app/extra' }, { id: 'asdk_app_linear', name: 'duplicate' }] },
        },
      }),
    );
    fake.apps.set('asdk_app_linear', {
      id: 'asdk_app_linear',
      status: 'ENABLED',
      tools: [{ name: 'update_issue', description: 'Updates an issue.', is_read_only: false }, { name: 'get_issue', is_read_only: true }, { name: 'mystery' }],
    });
    fake.apps.set('asdk_app/extra', { id: 'asdk_app/extra', status: 'DISABLED', tools: [{ name: 'search docs', is_read_only: true }] });

    const entry = await details(PAT_A, 'plugin_asdk_app_linear');
    expect(Value.Check(PluginCatalogEntrySchema, entry)).toBe(true);
    expect(entry.available).toBe(true);
    expect(entry.tools).toEqual([
      { id: 'asdk_app%2Fextra/search%20docs', ownerId: 'asdk_app/extra', name: 'search docs', available: false, unavailableReason: expect.any(String), writes: false },
      { id: 'asdk_app_linear/get_issue', ownerId: 'asdk_app_linear', name: 'get_issue', available: true, writes: false },
      { id: 'asdk_app_linear/mystery', ownerId: 'asdk_app_linear', name: 'mystery', available: true },
      { id: 'asdk_app_linear/update_issue', ownerId: 'asdk_app_linear', name: 'update_issue', description: 'Updates an issue.', available: true, writes: true },
    ]);
    expect(JSON.stringify(entry)).not.toMatch(/bundles|download|secret-download-signature|acct-alpha/u);

    const calls = catalogRequests();
    expect(calls.map((r) => [r.method, r.path, r.query])).toEqual([
      ['GET', '/backend-api/ps/plugins/plugin_asdk_app_linear', {}],
      ['POST', '/backend-api/ps/apps/batch', {}],
    ]);
    expect(calls[1]!.body).toEqual({ app_ids: ['asdk_app_linear', 'asdk_app/extra'], include_tools: true });
    for (const call of calls) expect(call.headers['chatgpt-account-id']).toBe('acct-alpha');
  });

  it('[D-14] leaves tools unknown (null) when an app or its tool list is missing, and [] when observed empty', async () => {
    fake.plugins.push(
      fakePluginItem('notools', { release: { app_ids: ['asdk_app_notools'] } }),
      fakePluginItem('missingapp', { release: { app_ids: ['asdk_app_gone'] } }),
      fakePluginItem('empty', { release: { app_ids: ['asdk_app_empty'] } }),
    );
    fake.apps.set('asdk_app_notools', { id: 'asdk_app_notools', status: 'ENABLED' });
    fake.apps.set('asdk_app_empty', { id: 'asdk_app_empty', status: 'ENABLED', tools: [] });
    expect((await details(PAT_A, 'plugin_asdk_app_notools')).tools).toBeNull();
    expect((await details(PAT_A, 'plugin_asdk_app_missingapp')).tools).toBeNull();
    expect((await details(PAT_A, 'plugin_asdk_app_empty')).tools).toEqual([]);
  });

  it('[D-14] answers an unsupported release as an unavailable entry, not an error, without asking for tools', async () => {
    fake.plugins.push(fakePluginItem('nightly', { release: { scheduled_tasks: [{ name: 'nightly' }] } }));
    const entry: PluginCatalogEntry = await details(PAT_A, 'plugin_asdk_app_nightly');
    expect(entry).toMatchObject({ id: 'codex:nightly@openai-curated-remote', available: false, unavailableReason: UNAVAILABLE.unsupportedRelease, tools: null });
    expect(catalogRequests().map((r) => r.path)).toEqual(['/backend-api/ps/plugins/plugin_asdk_app_nightly']);
  });

  it('[D-14] maps an unknown or non-GLOBAL plugin to not_found', async () => {
    fake.plugins.push(fakePluginItem('ws', { scope: 'WORKSPACE' }));
    expect(await failure(details(PAT_A, 'plugin_nope'))).toBe('not_found');
    expect(await failure(details(PAT_A, 'plugin_asdk_app_ws'))).toBe('not_found');
    const before = fake.requests.length;
    expect(await failure(details(PAT_A, '../ps/plugins/list'))).toBe('not_found');
    expect(fake.requests.length).toBe(before);
  });
});

describe('hosted discovery: credentials', () => {
  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['wrong prefix', 'sk-proj-abc'],
    ['prefix only', 'at-'],
    ['whitespace', 'at-abc def'],
    ['newline (header injection)', 'at-abc\r\nX-Evil: 1'],
    ['control character', 'at-abc\u0000'],
    ['non-ASCII', 'at-abcé'],
    ['too long', `at-${'a'.repeat(16384)}`],
  ])('[D-14] rejects a malformed PAT (%s) with no network I/O, as malformed (no catalog rejected it)', async (_label, credential) => {
    fake.plugins.push(fakePluginItem('linear'));
    expect(await failure(list(credential))).toBe('credential_malformed');
    expect(await failure(details(credential, 'plugin_asdk_app_linear'))).toBe('credential_malformed');
    expect(fake.requests).toEqual([]);
  });

  it('[D-14] maps a well-formed PAT the identity service refuses to credentials_rejected', async () => {
    expect(await failure(list('at-unknown-token'), 'at-unknown-token')).toBe('credentials_rejected');
    expect(catalogRequests()).toEqual([]);
  });
});

describe('hosted discovery: hostile upstreams', () => {
  const cases: Array<[string, FakeRoute, Misbehaviour, PluginDiscoveryFailure]> = [
    ['401', 'list', { kind: 'status', status: 401 }, 'credentials_rejected'],
    ['403', 'list', { kind: 'status', status: 403 }, 'credentials_rejected'],
    ['429', 'list', { kind: 'status', status: 429 }, 'rate_limited'],
    ['500', 'list', { kind: 'status', status: 500 }, 'unavailable'],
    ['404 on a list', 'list', { kind: 'status', status: 404 }, 'unavailable'],
    ['a redirect', 'list', { kind: 'redirect' }, 'unavailable'],
    ['a redirect from whoami', 'whoami', { kind: 'redirect' }, 'unavailable'],
    ['429 from whoami', 'whoami', { kind: 'status', status: 429 }, 'rate_limited'],
    ['an oversized body with content-length', 'list', { kind: 'oversized-declared' }, 'invalid_response'],
    ['an oversized streamed body', 'list', { kind: 'oversized-streamed' }, 'invalid_response'],
    ['an oversized whoami', 'whoami', { kind: 'oversized-streamed' }, 'invalid_response'],
    ['a body that trickles past the deadline', 'list', { kind: 'slow-body' }, 'unavailable'],
    ['a whoami that trickles past the deadline', 'whoami', { kind: 'slow-body' }, 'unavailable'],
    ['a malformed body', 'list', { kind: 'malformed' }, 'invalid_response'],
    ['a body of the wrong shape', 'list', { kind: 'wrong-shape' }, 'invalid_response'],
    ['a whoami of the wrong shape', 'whoami', { kind: 'wrong-shape' }, 'invalid_response'],
  ];

  it.each(cases)('[D-16] bounds and maps %s', async (_label, route, how, reason) => {
    fake.plugins.push(fakePluginItem('linear'));
    fake.misbehave(route, how);
    const started = Date.now();
    expect(await failure(list(PAT_A), PAT_A, 'acct-alpha')).toBe(reason);
    // A sanity guard only: the deadline plus generous slack.
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 5_000);
    if (how.kind === 'redirect') expect(fake.requests.some((r) => r.path === '/elsewhere')).toBe(false);
  });

  it('[D-16] cancels a streamed body as soon as it passes 4 MiB', async () => {
    fake.misbehave('list', { kind: 'oversized-streamed' });
    expect(await failure(list(PAT_A))).toBe('invalid_response');
    await expect.poll(() => fake.clientCancelledBody).toBe(true);
  });

  it.each([
    ['details', { kind: 'status', status: 500 }, 'unavailable'],
    ['details', { kind: 'slow-body' }, 'unavailable'],
    ['details', { kind: 'malformed' }, 'invalid_response'],
    ['batch', { kind: 'status', status: 403 }, 'credentials_rejected'],
    ['batch', { kind: 'oversized-declared' }, 'invalid_response'],
    ['batch', { kind: 'wrong-shape' }, 'invalid_response'],
    ['batch', { kind: 'redirect' }, 'unavailable'],
  ] as Array<[FakeRoute, Misbehaviour, PluginDiscoveryFailure]>)('[D-16] bounds and maps details when %s misbehaves (%o)', async (route, how, reason) => {
    fake.plugins.push(fakePluginItem('linear'));
    fake.apps.set('asdk_app_linear', { id: 'asdk_app_linear', status: 'ENABLED', tools: [] });
    fake.misbehave(route, how);
    expect(await failure(details(PAT_A, 'plugin_asdk_app_linear'), PAT_A)).toBe(reason);
  });

  it('[D-14] refuses a next page token that leads back to the same page', async () => {
    for (let i = 0; i < 25; i++) fake.plugins.push(fakePluginItem(`p${i}`));
    const cursor = (await list(PAT_A)).nextCursor!;
    fake.misbehave('list', { kind: 'same-page-token' });
    expect(await failure(list(PAT_A, undefined, cursor))).toBe('invalid_response');
  });

  it('[D-16] combines the deadline with the caller signal', async () => {
    fake.misbehave('list', { kind: 'slow-body', intervalMs: 20 });
    const controller = new AbortController();
    const started = Date.now();
    const call = discovery.listCatalog({ credential: PAT_A }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await failure(call)).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
  });

  it('[D-16] trusts only the configured roots and fails closed on an unreachable upstream', async () => {
    const untrusting = createCodexHostedDriver({ discovery: { catalogBaseUrl: fake.catalogBaseUrl, identityBaseUrl: fake.identityBaseUrl } }).discovery!;
    expect(await failure(untrusting.listCatalog({ credential: PAT_A }, signal()))).toBe('unavailable');
    const unreachable = createCodexHostedDriver({
      discovery: { catalogBaseUrl: 'https://127.0.0.1:1/backend-api/', identityBaseUrl: 'https://127.0.0.1:1/', ca: fake.ca },
    }).discovery!;
    expect(await failure(unreachable.listCatalog({ credential: PAT_A }, signal()))).toBe('unavailable');
  });
});

describe('hosted discovery: echo guard', () => {
  it.each(['whoami', 'list', 'details', 'batch'] as FakeRoute[])('[D-17] refuses a %s answer that echoes the bearer token', async (route) => {
    fake.plugins.push(fakePluginItem('linear'));
    fake.apps.set('asdk_app_linear', { id: 'asdk_app_linear', status: 'ENABLED', tools: [] });
    fake.misbehave(route, { kind: 'echo-token' });
    const call = route === 'list' || route === 'whoami' ? list(PAT_A) : details(PAT_A, 'plugin_asdk_app_linear');
    expect(await failure(call, PAT_A)).toBe('invalid_response');
  });

  it('[D-17] refuses an entry that carries the credential or the account id', async () => {
    fake.plugins.push(fakePluginItem('sneaky', { release: { display_name: `Sneaky ${PAT_A}` } }));
    expect(await failure(list(PAT_A), PAT_A)).toBe('invalid_response');
    fake.plugins.length = 0;
    fake.plugins.push(fakePluginItem('account', { release: { description: 'for acct-alpha only', interface: {} } }));
    expect(await failure(list(PAT_A), 'acct-alpha')).toBe('invalid_response');
    // The same page is fine for a caller whose credential and account it does not name.
    expect((await list(PAT_B)).plugins).toHaveLength(1);
  });
});
