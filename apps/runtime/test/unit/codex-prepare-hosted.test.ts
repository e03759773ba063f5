import type { PluginMap } from '@occ/contracts';
import { describe, expect, it } from 'vitest';
import { StartupFailure } from '../../src/failure.ts';
import { prepareCodexRevision } from '../../src/codex/prepare-codex.ts';
import { fakeCodexAppServer, type FakeAppServerWorld } from '../../../../test-support/fake-codex-app-server.ts';
import { testManifest } from '../support/runtime-process.ts';

// The Codex preparation on the hosted marketplace's paths (apps, authentication, the codex_apps
// inventory), which only a fake app-server can show offline; the real one is driven in
// ../codex-prepare.test.ts with a local marketplace.
const calendar = { name: 'calendar', remotePluginId: 'plugin_asdk_calendar', version: '3.1.0', apps: [{ id: 'asdk_app_calendar', name: 'Calendar' }] };
const mail = { name: 'mail', remotePluginId: 'plugin_asdk_mail', version: '1.2.0', apps: [{ id: 'asdk_app_mail', name: 'Mail' }] };
const tool = (name: string, connector: string, resourceUri?: string) => ({
  name,
  inputSchema: {},
  _meta: { connector_id: connector, ...(resourceUri ? { _codex_apps: { resource_uri: resourceUri } } : {}) },
});
const codexApps = (tools: ReturnType<typeof tool>[]) => ({
  name: 'codex_apps',
  runtimeStatus: null,
  pluginId: null,
  serverInfo: null,
  toolsError: null,
  resources: [],
  resourceTemplates: [],
  authStatus: 'bearerToken',
  tools: Object.fromEntries(tools.map((t) => [t.name, t])),
});

async function prepare(world: FakeAppServerWorld, selections: PluginMap) {
  const server = fakeCodexAppServer(world);
  const manifest = { ...testManifest(selections, {}), harness: 'codex' as const, plugins: { driverId: 'codex-hosted', selections, approvers: null } };
  const result = await prepareCodexRevision({
    client: server,
    manifest,
    marketplaces: [],
    workspace: '/workspace',
    assetsDir: '/nonexistent/assets',
    openclawHome: '/nonexistent/openclaw',
    installTimeoutMs: 5_000,
    signal: new AbortController().signal,
  }).catch((error: unknown) => error as StartupFailure);
  return { server, result };
}
const methods = (server: ReturnType<typeof fakeCodexAppServer>) => server.calls.map((call) => call.method);
const codeOf = (result: unknown) => (result instanceof StartupFailure ? result.code : 'not a failure');

describe('prepareCodexRevision on the hosted marketplace (fake app-server)', () => {
  it('[X-3] [X-4] reads, plans, installs one at a time, writes once, then re-reads before the final readback', async () => {
    const { server, result } = await prepare(
      { plugins: [calendar, mail] },
      { 'codex:mail@openai-curated-remote': { enabled: true }, 'codex:calendar@openai-curated-remote': { enabled: true } },
    );
    if (result instanceof Error) throw result;
    expect(methods(server)).toEqual([
      'config/read',
      'plugin/list',
      'plugin/read',
      'plugin/read',
      'plugin/install',
      'plugin/install',
      'config/read',
      'config/batchWrite',
      'plugin/list',
      'plugin/read',
      'plugin/read',
      'config/read',
      'configRequirements/read',
    ]);
    // Read by opaque remote id, in selection order (keys sorted): calendar, then mail.
    expect(server.calls.filter((c) => c.method === 'plugin/read').map((c) => c.params)).toEqual([
      { remoteMarketplaceName: 'openai-curated-remote', pluginName: 'plugin_asdk_calendar' },
      { remoteMarketplaceName: 'openai-curated-remote', pluginName: 'plugin_asdk_mail' },
      { remoteMarketplaceName: 'openai-curated-remote', pluginName: 'plugin_asdk_calendar' },
      { remoteMarketplaceName: 'openai-curated-remote', pluginName: 'plugin_asdk_mail' },
    ]);
    expect(result.plugins).toEqual(['codex:calendar@openai-curated-remote', 'codex:mail@openai-curated-remote']);
    expect(server.userLayer()).toMatchObject({
      features: { apps: true, plugins: true, remote_plugin: true },
      apps: { _default: { enabled: false }, asdk_app_calendar: { enabled: true }, asdk_app_mail: { enabled: true } },
    });
  });

  it('[W-1] [X-8] [G-1] an install leaving apps to authenticate warns PLUGIN_AUTH_REQUIRED; its app is off and its bridge entry disabled', async () => {
    const { server, result } = await prepare(
      { plugins: [{ ...calendar, install: { appsNeedingAuth: ['asdk_app_calendar'] } }, mail] },
      { 'codex:calendar@openai-curated-remote': { enabled: true }, 'codex:mail@openai-curated-remote': { enabled: true } },
    );
    if (result instanceof Error) throw result;
    expect(result.failures).toEqual([{ pluginId: 'codex:calendar@openai-curated-remote', code: 'PLUGIN_AUTH_REQUIRED' }]);
    expect(result.plugins).toEqual(['codex:mail@openai-curated-remote']);
    expect(server.userLayer().apps).toMatchObject({ asdk_app_calendar: { enabled: false }, asdk_app_mail: { enabled: true } });
    expect(result.artifact.bridge.plugins.entries.codex.config.codexPlugins.plugins['calendar@openai-curated-remote']).toMatchObject({ enabled: false });
  });

  it('[W-1] an install the app-server refuses warns PLUGIN_INSTALL_FAILED and the rest goes on', async () => {
    const { result } = await prepare(
      { plugins: [{ ...calendar, install: { rpcError: -32600 } }, mail] },
      { 'codex:calendar@openai-curated-remote': { enabled: true }, 'codex:mail@openai-curated-remote': { enabled: true } },
    );
    if (result instanceof Error) throw result;
    expect(result.failures).toEqual([{ pluginId: 'codex:calendar@openai-curated-remote', code: 'PLUGIN_INSTALL_FAILED' }]);
  });

  it('[X-5] app templates are never configured; only concrete apps are', async () => {
    const { server, result } = await prepare(
      { plugins: [{ ...calendar, appTemplates: [{ id: 'asdk_template_x' }] }] },
      { 'codex:calendar@openai-curated-remote': { enabled: true } },
    );
    if (result instanceof Error) throw result;
    expect(Object.keys(server.userLayer().apps as object).sort()).toEqual(['_default', 'asdk_app_calendar']);
  });

  it('[X-9] a tool policy binds through the codex_apps inventory (a catalog action id via resource_uri, a native id as is)', async () => {
    const inventoryPages = [
      [codexApps([tool('calendar_create_event', 'asdk_app_calendar', '/asdk_app_calendar/events/create'), tool('calendar_delete_event', 'asdk_app_calendar')])],
    ];
    const { server, result } = await prepare(
      { plugins: [calendar], inventoryPages },
      {
        'codex:calendar@openai-curated-remote': { enabled: true, tools: { 'asdk_app_calendar/create': { approval: 'all_actions' }, calendar_delete_event: { enabled: false } } },
      },
    );
    if (result instanceof Error) throw result;
    expect(methods(server)).toContain('mcpServerStatus/list');
    expect((server.userLayer().apps as Record<string, { tools?: unknown }>).asdk_app_calendar!.tools).toEqual({
      calendar_create_event: { approval_mode: 'prompt' },
      calendar_delete_event: { enabled: false },
    });
  });

  it('[X-9] an unknown tool id fails the startup before anything is written', async () => {
    const inventoryPages = [[codexApps([tool('calendar_create_event', 'asdk_app_calendar')])]];
    const { server, result } = await prepare(
      { plugins: [calendar], inventoryPages },
      { 'codex:calendar@openai-curated-remote': { enabled: true, tools: { no_such_tool: { enabled: false } } } },
    );
    expect(codeOf(result)).toBe('PLUGIN_POLICY_INVALID');
    expect(methods(server)).not.toContain('config/batchWrite');
  });

  it('[X-9] an ambiguous catalog action id (two tools share it) and a duplicate (two ids, one tool) each fail the startup before anything is written', async () => {
    const inventoryPages = [
      [
        codexApps([
          tool('calendar_create_event', 'asdk_app_calendar', '/asdk_app_calendar/events/create'),
          tool('calendar_create_task', 'asdk_app_calendar', '/asdk_app_calendar/tasks/create'),
        ]),
      ],
    ];
    const ambiguous = await prepare(
      { plugins: [calendar], inventoryPages },
      { 'codex:calendar@openai-curated-remote': { enabled: true, tools: { 'asdk_app_calendar/create': { enabled: false } } } },
    );
    expect(codeOf(ambiguous.result)).toBe('PLUGIN_POLICY_INVALID');
    expect(methods(ambiguous.server)).not.toContain('config/batchWrite');
    const duplicate = await prepare(
      { plugins: [calendar], inventoryPages },
      {
        'codex:calendar@openai-curated-remote': {
          enabled: true,
          tools: { calendar_create_task: { enabled: false }, 'asdk_app_calendar/calendar_create_task': { approval: 'all_actions' } },
        },
      },
    );
    expect(codeOf(duplicate.result)).toBe('PLUGIN_POLICY_INVALID');
    expect(methods(duplicate.server)).not.toContain('config/batchWrite');
  });

  it('[X-9] a policy naming tools with no codex_apps server in the inventory fails the startup', async () => {
    const { result } = await prepare(
      { plugins: [calendar], inventoryPages: [[]] },
      { 'codex:calendar@openai-curated-remote': { enabled: true, tools: { calendar_create_event: { enabled: false } } } },
    );
    expect(codeOf(result)).toBe('PLUGIN_POLICY_INVALID');
  });

  it("[X-11] [X-13] [X-16] a lower layer's tool and account link get the requested approval; an unselected app is turned off, its other fields kept", async () => {
    const system = {
      apps: {
        asdk_app_calendar: { enabled: true, tools: { calendar_delete_event: { approval_mode: 'auto' } }, links: { link_1: { default_tools_approval_mode: 'auto' } } },
        asdk_app_drive: { enabled: true, destructive_enabled: true },
      },
    };
    const { server, result } = await prepare(
      { plugins: [calendar], layers: { system } },
      { 'codex:calendar@openai-curated-remote': { enabled: true, toolDefaults: { approval: 'write_actions' } } },
    );
    if (result instanceof Error) throw result;
    const apps = server.userLayer().apps as Record<string, Record<string, unknown>>;
    expect(apps.asdk_app_calendar).toMatchObject({
      enabled: true,
      default_tools_approval_mode: 'writes',
      tools: { calendar_delete_event: { approval_mode: 'writes' } },
      links: { link_1: { default_tools_approval_mode: 'writes' } },
    });
    expect(apps.asdk_app_drive).toEqual({ enabled: false });
  });

  it("[X-15] a workspace layer above the revision's that changes an approval fails the readback", async () => {
    const workspace = { apps: { asdk_app_calendar: { default_tools_approval_mode: 'approve' } } };
    const { result } = await prepare(
      { plugins: [calendar], layers: { workspace } },
      { 'codex:calendar@openai-curated-remote': { enabled: true, toolDefaults: { approval: 'all_actions' } } },
    );
    expect(codeOf(result)).toBe('CONFIG_VERIFICATION_FAILED');
  });

  it('[X-19] a reviewer the requirements do not allow fails the readback', async () => {
    const { result } = await prepare(
      { plugins: [calendar], requirements: { allowedApprovalsReviewers: ['user'] }, layers: { system: { approval_policy: 'on-request' } } },
      { 'codex:calendar@openai-curated-remote': { enabled: true, toolDefaults: { reviewer: 'auto' } } },
    );
    expect(codeOf(result)).toBe('CONFIG_VERIFICATION_FAILED');
  });

  it('[X-19] the same reviewer passes when the requirements allow it', async () => {
    const { result } = await prepare(
      { plugins: [calendar], requirements: { allowedApprovalsReviewers: ['user', 'auto_review'] }, layers: { system: { approval_policy: 'on-request' } } },
      { 'codex:calendar@openai-curated-remote': { enabled: true, toolDefaults: { reviewer: 'auto' } } },
    );
    if (result instanceof Error) throw result;
    expect(result.plugins).toEqual(['codex:calendar@openai-curated-remote']);
  });
});
