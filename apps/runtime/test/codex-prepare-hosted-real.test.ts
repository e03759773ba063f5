import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginMap } from '@occ/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakePluginItem, startFakeHostedCatalog, type FakeHostedCatalog } from '../../../test-support/fake-hosted-catalog.ts';
import { startRealCodexAppServer, type RealCodexAppServer } from '../../../test-support/real-codex-app-server.ts';
import type { AppServerClient } from '../src/codex/app-server-client.ts';
import { prepareCodexRevision } from '../src/codex/prepare-codex.ts';
import { StartupFailure } from '../src/failure.ts';
import { testManifest } from './support/runtime-process.ts';

// The Codex preparation on the hosted marketplace's paths, against the REAL pinned `codex
// app-server` started as the runtime starts it (test-support/real-codex-app-server.ts:
// prepareCodexHome, codexProcessEnvironment, the websocket listener, the sign-in check) and the
// HTTPS fake of the hosted service (test-support/fake-hosted-catalog.ts + fake-codex-plugin-service.ts).
// The same paths against a fake app-server: unit/codex-prepare-hosted.test.ts.
const PAT = `at-occ-hosted-${randomBytes(12).toString('hex')}`; // Codex signs in only with a PAT of this form
const ACCOUNT = 'acct-hosted-real';
const REMOTE = 'openai-curated-remote';
const CALENDAR = `codex:calendar@${REMOTE}`;
const MAIL = `codex:mail@${REMOTE}`;
const calendarItem = () =>
  fakePluginItem('calendar', {
    id: 'plugins~Plugin_calendar',
    release: {
      version: '3.1.0',
      app_ids: ['asdk_app_calendar'],
      // A template is not an app: it must never reach the configuration ([X-5]).
      app_templates: [
        {
          template_id: 'asdk_template_drive',
          name: 'Drive (template)',
          canonical_connector_id: 'connector_drive',
          materialized_app_ids: [],
          reason: 'NOT_CONFIGURED_FOR_WORKSPACE',
        },
      ],
    },
  });
const mailItem = () => fakePluginItem('mail', { id: 'plugins~Plugin_mail', release: { version: '1.2.0', app_ids: ['asdk_app_mail'] } });

let hosted: FakeHostedCatalog;
let caDir: string;
let root: string;
let appServer: RealCodexAppServer | undefined;
let client: AppServerClient | undefined;

beforeAll(async () => {
  hosted = await startFakeHostedCatalog();
  hosted.accounts.set(PAT, { accountId: ACCOUNT });
  caDir = mkdtempSync(join(tmpdir(), 'occ-hosted-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), hosted.ca, { mode: 0o600 });
});
afterAll(async () => {
  await hosted?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'occ-codex-hosted-real-'));
  hosted.plugins.splice(0, hosted.plugins.length, calendarItem(), mailItem());
  hosted.apps.clear();
  hosted.apps.set('asdk_app_calendar', { id: 'asdk_app_calendar', name: 'Calendar', description: 'A calendar app.' });
  hosted.apps.set('asdk_app_mail', { id: 'asdk_app_mail', name: 'Mail', description: 'A mail app.' });
  const { service } = hosted;
  service.installed.clear();
  service.appsNeedingAuth.clear();
  service.codexAppsTools.length = 0;
  service.mcpMessages.length = 0;
  hosted.requests.length = 0;
});
afterEach(async () => {
  await appServer?.stop();
  client = undefined;
  appServer = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** The runtime's Codex startup (peer.ts), up to and including prepareCodexRevision; `userLayer` is appended to config.toml first. */
async function prepare(selections: PluginMap, userLayer?: string) {
  const origin = new URL(hosted.catalogBaseUrl).origin;
  appServer = await startRealCodexAppServer({
    root,
    accessToken: PAT,
    chatgptBaseUrl: `${origin}/backend-api`,
    authBaseUrl: `${origin}/api/accounts`,
    modelBaseUrl: `${origin}/v1`,
    // The runtime's allowlisted CA variable: Codex gets it as CODEX_CA_CERTIFICATE.
    network: { NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem') },
    ...(userLayer === undefined ? {} : { userLayer }),
  });
  const { codexHome, workspace } = appServer;
  client = appServer.client;
  const signal = new AbortController().signal;
  const manifest = { ...testManifest(selections, {}), harness: 'codex' as const, plugins: { driverId: 'codex-hosted', selections, approvers: null } };
  const result = await prepareCodexRevision({
    client,
    manifest,
    marketplaces: [],
    workspace,
    assetsDir: join(root, 'runtime-assets'),
    openclawHome: join(root, 'openclaw-home'),
    installTimeoutMs: 60_000,
    signal,
  }).catch((error: unknown) => error as StartupFailure);
  return { codexHome, workspace, client, result };
}

/** A config/read value without the `null`s the real binary reports for every unset optional field. */
function setFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(setFields);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([key, field]) => [key, setFields(field)]),
  );
}

/** The effective `apps` table the real binary reads back (its set fields). */
async function appsReadBack(workspace: string): Promise<Record<string, Record<string, unknown>>> {
  const answer = await client!.request<{ config: { apps?: Record<string, Record<string, unknown>> | null } }>('config/read', { cwd: workspace });
  return setFields(answer.config.apps ?? {}) as Record<string, Record<string, unknown>>;
}

const installPosts = () => hosted.requests.filter((r) => r.method === 'POST' && /^\/backend-api\/ps\/plugins\/[^/]+\/install$/u.test(r.path));
const codeOf = (result: unknown) => (result instanceof StartupFailure ? result.code : `not a failure: ${String(result)}`);

describe('prepareCodexRevision on the hosted marketplace (real app-server, fake hosted service)', () => {
  it('[X-5] the configuration names the concrete `detail.apps` only, never the app template the real plugin/read reports', async () => {
    const { workspace, result } = await prepare({ [CALENDAR]: { enabled: true } });
    if (result instanceof Error) throw result;
    expect(result).toMatchObject({ plugins: [CALENDAR], failures: [] });
    // What the real binary made of the item: one concrete app, one template.
    const { plugin } = await client!.request<{
      plugin: { apps: { id: string }[]; appTemplates: { templateId: string; canonicalConnectorId: string | null }[]; summary: { installed: boolean } };
    }>('plugin/read', { remoteMarketplaceName: REMOTE, pluginName: 'plugins~Plugin_calendar' });
    expect(plugin.apps.map((app) => app.id)).toEqual(['asdk_app_calendar']);
    expect(plugin.appTemplates).toEqual([expect.objectContaining({ templateId: 'asdk_template_drive', canonicalConnectorId: 'connector_drive' })]);
    expect(plugin.summary.installed).toBe(true);
    expect(Object.keys(result.artifact.apps)).toEqual(['asdk_app_calendar']);
    const apps = await appsReadBack(workspace);
    expect(Object.keys(apps).sort()).toEqual(['_default', 'asdk_app_calendar']);
    expect(apps.asdk_app_calendar).toMatchObject({ enabled: true });
    // The install went to the hosted service with the Agent's PAT, for that account.
    expect(installPosts()).toEqual([expect.objectContaining({ path: '/backend-api/ps/plugins/plugins~Plugin_calendar/install' })]);
    expect(installPosts()[0]!.headers).toMatchObject({ authorization: `Bearer ${PAT}`, 'chatgpt-account-id': ACCOUNT, 'oai-product-sku': 'codex' });
  }, 120_000);

  it('[X-8] [W-1] an install the hosted service answers with an app needing authentication warns PLUGIN_AUTH_REQUIRED; that app is off, the other plugin goes on', async () => {
    hosted.service.appsNeedingAuth.add('asdk_app_calendar');
    const { codexHome, workspace, result } = await prepare({ [CALENDAR]: { enabled: true }, [MAIL]: { enabled: true } });
    if (result instanceof Error) throw result;
    expect(result.failures).toEqual([{ pluginId: CALENDAR, code: 'PLUGIN_AUTH_REQUIRED' }]);
    expect(result.plugins).toEqual([MAIL]);
    const apps = await appsReadBack(workspace);
    expect(apps).toMatchObject({ _default: { enabled: false }, asdk_app_calendar: { enabled: false }, asdk_app_mail: { enabled: true } });
    expect(result.artifact.bridge.plugins.entries.codex.config.codexPlugins.plugins[`calendar@${REMOTE}`]).toMatchObject({ enabled: false });
    // Both installs really happened: bundle downloaded (no bearer: a signed URL), POSTed with the PAT, unpacked.
    expect(installPosts().map((r) => [r.path, r.query, r.headers.authorization])).toEqual([
      ['/backend-api/ps/plugins/plugins~Plugin_calendar/install', { includeAppsNeedingAuth: 'true' }, `Bearer ${PAT}`],
      ['/backend-api/ps/plugins/plugins~Plugin_mail/install', { includeAppsNeedingAuth: 'true' }, `Bearer ${PAT}`],
    ]);
    const downloads = hosted.requests.filter((r) => r.path.startsWith('/files/bundles/'));
    expect(downloads.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    expect(existsSync(join(codexHome, 'plugins', 'cache', REMOTE, 'calendar', '3.1.0', '.codex-plugin', 'plugin.json'))).toBe(true);
    expect(existsSync(join(codexHome, 'plugins', 'cache', REMOTE, 'mail', '1.2.0', '.codex-plugin', 'plugin.json'))).toBe(true);
  }, 120_000);

  it('[X-9] a tool policy binds through the real codex_apps inventory: a catalog action id through `_meta._codex_apps.resource_uri`, a native tool id as is', async () => {
    hosted.service.codexAppsTools.push(
      { app: 'asdk_app_calendar', name: 'calendar_create_event', resourceUri: '/asdk_app_calendar/events/create' },
      { app: 'asdk_app_calendar', name: 'calendar_delete_event' },
    );
    const { workspace, result } = await prepare({
      [CALENDAR]: { enabled: true, tools: { 'asdk_app_calendar/create': { approval: 'all_actions' }, calendar_delete_event: { enabled: false } } },
    });
    if (result instanceof Error) throw result;
    const apps = await appsReadBack(workspace);
    expect(apps.asdk_app_calendar!.tools).toEqual({ calendar_create_event: { approval_mode: 'prompt' }, calendar_delete_event: { enabled: false } });
    // The inventory came from the fake's codex_apps server, which got no bearer (a PAT login sends none).
    expect(hosted.service.mcpMessages.map((m) => m.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list']));
    const mcp = hosted.requests.filter((r) => r.path === '/backend-api/ps/mcp' && r.method === 'POST');
    expect(mcp.length).toBeGreaterThan(0);
    expect(mcp.map((r) => r.headers.authorization ?? null)).toEqual(mcp.map(() => null));
  }, 120_000);

  it('[X-9] a tool id the real codex_apps inventory does not have fails the startup (PLUGIN_POLICY_INVALID) before the configuration is written', async () => {
    hosted.service.codexAppsTools.push({ app: 'asdk_app_calendar', name: 'calendar_create_event', resourceUri: '/asdk_app_calendar/events/create' });
    const { workspace, result } = await prepare({ [CALENDAR]: { enabled: true, tools: { no_such_tool: { enabled: false } } } });
    expect(codeOf(result)).toBe('PLUGIN_POLICY_INVALID');
    expect(hosted.service.mcpMessages.map((m) => m.method)).toContain('tools/list');
    expect(Object.keys(await appsReadBack(workspace))).toEqual(['_default']);
  }, 120_000);

  it('[X-11] [X-13] config/batchWrite on the real binary replaces the local app subtrees, writes inherited tool approvals, turns unselected apps off and keeps `apps._default` off', async () => {
    const stale = [
      '[apps.asdk_app_calendar]',
      'enabled = true',
      'default_tools_enabled = false',
      'default_tools_approval_mode = "auto"',
      '[apps.asdk_app_calendar.tools.calendar_delete_event]',
      'approval_mode = "auto"',
      '[apps.asdk_app_calendar.links.link_1]',
      'default_tools_approval_mode = "auto"',
      '[apps.asdk_app_drive]',
      'enabled = true',
      'destructive_enabled = true',
    ].join('\n');
    const { codexHome, workspace, result } = await prepare({ [CALENDAR]: { enabled: true, toolDefaults: { approval: 'write_actions' } } }, stale);
    if (result instanceof Error) throw result;
    const apps = await appsReadBack(workspace);
    expect(apps._default).toMatchObject({ enabled: false });
    // Replaced as a whole: the stale `default_tools_enabled` is gone; the inherited tool and account link take the requested approval.
    expect(result.artifact.apps.asdk_app_calendar).not.toHaveProperty('default_tools_enabled');
    expect(apps.asdk_app_calendar).toEqual({
      ...result.artifact.apps.asdk_app_calendar,
      tools: { calendar_delete_event: { approval_mode: 'writes' } },
      links: { link_1: { default_tools_approval_mode: 'writes' } },
    });
    expect(apps.asdk_app_calendar).toMatchObject({ enabled: true, default_tools_approval_mode: 'writes' });
    // Unselected: only `enabled` is written, the rest of its table kept.
    expect(apps.asdk_app_drive).toEqual({ enabled: false, destructive_enabled: true });
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).not.toMatch(/approval_mode = "auto"/);
  }, 120_000);
});
