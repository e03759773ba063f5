import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupFailure } from '../../src/failure.ts';
import { AppServerError } from '../../src/codex/app-server-client.ts';
import { appServerCredential, credentialDigest } from '../../src/codex/credential.ts';
import { prepareCodexHome } from '../../src/codex/home.ts';
import { installCodexPlugins } from '../../src/codex/install.ts';
import { readMcpInventory } from '../../src/codex/inventory.ts';
import { locateSelections } from '../../src/codex/locate.ts';
import { linkPluginSkills } from '../../src/codex/skills.ts';
import { StartupProgress } from '../../src/progress.ts';

/** A client whose answers are scripted per method; records every call in order. */
function scripted(answer: (method: string, params: unknown, call: number) => unknown) {
  const calls: [string, unknown][] = [];
  return {
    calls,
    async request<T>(method: string, params?: unknown): Promise<T> {
      calls.push([method, params]);
      const result = answer(method, params, calls.length);
      if (result instanceof Error) throw result;
      return result as T;
    },
  };
}
const options = { timeoutMs: 1_000, signal: new AbortController().signal };
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as StartupFailure,
  );

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'occ-codex-steps-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('installCodexPlugins', () => {
  const rows = ['a', 'b', 'c'].map((name) => ({ selectionKey: `codex:${name}@m`, location: { marketplacePath: '/m.json', pluginName: name } }));

  it('[X-4] [X-8] [W-1] installs one at a time in order; a JSON-RPC rejection warns PLUGIN_INSTALL_FAILED, apps needing auth warn PLUGIN_AUTH_REQUIRED', async () => {
    let inFlight = 0;
    let most = 0;
    const client = {
      calls: [] as string[],
      async request<T>(method: string, params?: unknown): Promise<T> {
        const { pluginName } = params as { pluginName: string };
        this.calls.push(`${method} ${pluginName}`);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (pluginName === 'a') throw new AppServerError('rpc', method, -32600, 'not available');
        if (pluginName === 'b')
          return { authPolicy: 'ON_USE', appsNeedingAuth: [{ id: 'asdk_app_1', name: 'Calendar', description: null, installUrl: null, category: null }] } as T;
        return { authPolicy: 'ON_INSTALL', appsNeedingAuth: [] } as T;
      },
    };
    const progress = new StartupProgress();
    const warnings = await installCodexPlugins(client, rows, options, progress);
    expect(client.calls).toEqual(['plugin/install a', 'plugin/install b', 'plugin/install c']);
    // The status reports each install as the OpenClaw path does: the selection key and its result.
    expect(progress.list().map(({ at: _at, ...entry }) => entry)).toEqual([
      { step: 'install', pluginId: 'codex:a@m', result: 'rejected' },
      { step: 'install', pluginId: 'codex:b@m', result: 'done' },
      { step: 'install', pluginId: 'codex:c@m', result: 'done' },
    ]);
    expect(most).toBe(1);
    expect(warnings).toEqual([
      { pluginId: 'codex:a@m', code: 'PLUGIN_INSTALL_FAILED' },
      { pluginId: 'codex:b@m', code: 'PLUGIN_AUTH_REQUIRED' },
    ]);
  });

  it.each([
    ['a timeout', new AppServerError('timeout', 'plugin/install')],
    ['the app-server exiting', new AppServerError('exit', 'plugin/install')],
    ['a signal', new AppServerError('aborted', 'plugin/install')],
    ['a malformed stream', new AppServerError('malformed', 'plugin/install')],
  ])('[W-2] %s during an install is a startup failure, never a plugin warning', async (_, error) => {
    const failure = await failureOf(
      installCodexPlugins(
        scripted(() => error),
        rows,
        options,
        new StartupProgress(),
      ),
    );
    expect(failure).toBeInstanceOf(StartupFailure);
    expect(failure!.code).toBe('CODEX_APP_SERVER_FAILED');
  });

  it.each([
    ['no authPolicy', { appsNeedingAuth: [] }],
    ['an unknown authPolicy', { authPolicy: 'SOMETIMES', appsNeedingAuth: [] }],
    ['appsNeedingAuth not a list', { authPolicy: 'ON_USE', appsNeedingAuth: {} }],
    ['an app without an id', { authPolicy: 'ON_USE', appsNeedingAuth: [{ name: 'x' }] }],
  ])('[W-2] an install answer with %s is malformed: a startup failure', async (_, answer) => {
    const failure = await failureOf(
      installCodexPlugins(
        scripted(() => answer),
        rows.slice(2),
        options,
        new StartupProgress(),
      ),
    );
    expect(failure?.code).toBe('CODEX_APP_SERVER_FAILED');
  });
});

describe('readMcpInventory', () => {
  const server = (name: string) => ({
    name,
    tools: {},
    toolsError: null,
    runtimeStatus: null,
    pluginId: null,
    serverInfo: null,
    resources: [],
    resourceTemplates: [],
    authStatus: 'unsupported',
  });

  it('[X-9] follows opaque cursors to the last page, asking for tools and auth only', async () => {
    const client = scripted((_, params) => {
      const cursor = (params as { cursor?: string }).cursor;
      return cursor === undefined ? { data: [server('codex_apps')], nextCursor: 'p2' } : { data: [server('other')], nextCursor: null };
    });
    const servers = await readMcpInventory(client, options);
    expect(servers.map((s) => s.name)).toEqual(['codex_apps', 'other']);
    expect(client.calls).toEqual([
      ['mcpServerStatus/list', { detail: 'toolsAndAuthOnly' }],
      ['mcpServerStatus/list', { detail: 'toolsAndAuthOnly', cursor: 'p2' }],
    ]);
  });

  it('[W-2] a repeated cursor or a malformed page is a startup failure, not a loop', async () => {
    expect(
      (
        await failureOf(
          readMcpInventory(
            scripted(() => ({ data: [], nextCursor: 'same' })),
            options,
          ),
        )
      )?.code,
    ).toBe('CODEX_APP_SERVER_FAILED');
    expect(
      (
        await failureOf(
          readMcpInventory(
            scripted(() => ({ data: [{ name: 'x' }], nextCursor: null })),
            options,
          ),
        )
      )?.code,
    ).toBe('CODEX_APP_SERVER_FAILED');
    expect(
      (
        await failureOf(
          readMcpInventory(
            scripted(() => new AppServerError('timeout', 'mcpServerStatus/list')),
            options,
          ),
        )
      )?.code,
    ).toBe('CODEX_APP_SERVER_FAILED');
  });
});

describe('locateSelections', () => {
  const listing = {
    marketplaces: [
      { name: 'local-market', path: '/srv/market/.agents/plugins/marketplace.json', plugins: [{ id: 'notes@local-market', name: 'notes', remotePluginId: null }] },
      { name: 'openai-curated-remote', path: null, plugins: [{ id: 'calendar@openai-curated-remote', name: 'calendar', remotePluginId: 'plugin_asdk_app_7' }] },
    ],
    marketplaceLoadErrors: [],
    featuredPluginIds: [],
  };

  it('finds each selection by its summary id: a local one by its marketplace file, a hosted one by its opaque remote id', async () => {
    const client = scripted(() => listing);
    const located = await locateSelections(
      client,
      [
        { selectionKey: 'codex:calendar@openai-curated-remote', nativeId: 'calendar@openai-curated-remote' },
        { selectionKey: 'codex:notes@local-market', nativeId: 'notes@local-market' },
      ],
      { ...options, cwds: ['/srv/market'] },
    );
    expect(client.calls).toEqual([['plugin/list', { cwds: ['/srv/market'] }]]);
    expect(located.map((l) => l.location)).toEqual([
      { remoteMarketplaceName: 'openai-curated-remote', pluginName: 'plugin_asdk_app_7' },
      { marketplacePath: '/srv/market/.agents/plugins/marketplace.json', pluginName: 'notes' },
    ]);
  });

  it('[W-2] a selection no marketplace lists is a discovery failure (PLUGIN_NOT_IN_CATALOG); a malformed listing a protocol failure', async () => {
    const missing = await failureOf(
      locateSelections(
        scripted(() => listing),
        [{ selectionKey: 'codex:gone@local-market', nativeId: 'gone@local-market' }],
        { ...options, cwds: [] },
      ),
    );
    expect(missing?.code).toBe('PLUGIN_NOT_IN_CATALOG');
    const malformed = await failureOf(
      locateSelections(
        scripted(() => ({ marketplaces: [{ name: 'x' }] })),
        [],
        { ...options, cwds: [] },
      ),
    );
    expect(malformed?.code).toBe('CODEX_APP_SERVER_FAILED');
  });
});

describe('the app-server credential', () => {
  const secret = 'a'.repeat(43);
  it('[G-6] [G-8] is derived from the transport secret, the revision id and the startup id: a new startup gives a new credential', () => {
    const first = appServerCredential(secret, 'rev_1', 'startup-1');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(appServerCredential(secret, 'rev_1', 'startup-1')).toBe(first);
    expect(appServerCredential(secret, 'rev_1', 'startup-2')).not.toBe(first);
    expect(appServerCredential(secret, 'rev_2', 'startup-1')).not.toBe(first);
    expect(appServerCredential(`${secret}b`, 'rev_1', 'startup-1')).not.toBe(first);
    expect(credentialDigest(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(credentialDigest(first)).not.toBe(first);
    expect(() => appServerCredential('short', 'rev_1', 'startup-1')).toThrow(RangeError);
  });
});

describe('the private CODEX_HOME', () => {
  it('[X-1] [X-2] turns apps, plugins and remote_plugin on only with selections, keeps apps._default off and the login in memory; 0600 in a 0700 home', () => {
    const { home, configPath } = prepareCodexHome(join(dir, 'codex-home'), { pluginsEnabled: true });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    const text = readFileSync(configPath, 'utf8');
    expect(text).toMatch(/\[features\]\napps = true\nplugins = true\nremote_plugin = true\n/);
    expect(text).toMatch(/\[apps\._default\]\nenabled = false\n/);
    expect(text).toContain('cli_auth_credentials_store = "ephemeral"');
    expect(text).toMatch(/\[analytics\]\nenabled = false\n/);
    const off = readFileSync(prepareCodexHome(join(dir, 'codex-home'), { pluginsEnabled: false }).configPath, 'utf8');
    expect(off).toMatch(/\[features\]\napps = false\nplugins = false\nremote_plugin = false\n/);
    expect(off).toMatch(/\[apps\._default\]\nenabled = false\n/);
    expect(off).not.toContain('openai_base_url');
    expect(off).not.toContain('chatgpt_base_url');
    expect(off).not.toContain('[projects.');
  });

  it("[X-20] writes the Agent's workspace untrusted, by its resolved path, so Codex neither trusts it by itself nor loads its `.codex` layer", () => {
    const workspace = join(dir, 'workspace');
    mkdirSync(workspace, { recursive: true });
    const text = readFileSync(prepareCodexHome(join(dir, 'codex-home'), { pluginsEnabled: false, workspace }).configPath, 'utf8');
    expect(text).toContain(`[projects.${JSON.stringify(realpathSync(workspace))}]\ntrust_level = "untrusted"\n`);
  });

  it("[X-1] the Installation's model endpoint is Codex's openai_base_url, a top-level key before any table", () => {
    const text = readFileSync(prepareCodexHome(join(dir, 'codex-home'), { pluginsEnabled: false, modelBaseUrl: 'https://models.example.test/v1' }).configPath, 'utf8');
    expect(text.slice(0, text.indexOf('['))).toContain('openai_base_url = "https://models.example.test/v1"\n');
  });

  it("[X-1] the Installation's hosted service is Codex's chatgpt_base_url too (an Enterprise workspace's managed policies are read from it), a top-level key", () => {
    const text = readFileSync(prepareCodexHome(join(dir, 'codex-home'), { pluginsEnabled: false, chatgptBaseUrl: 'https://hosted.example.test/backend-api/' }).configPath, 'utf8');
    expect(text.slice(0, text.indexOf('['))).toContain('chatgpt_base_url = "https://hosted.example.test/backend-api/"\n');
  });
});

describe('linkPluginSkills', () => {
  it("[S-4] links each skill directory (its relative files come along) under the assets folder, and OpenClaw's plugin-skills to it; nothing else is there", () => {
    const installed = join(dir, 'codex-home', 'plugins', 'cache', 'notes', 'skills', 'summarize');
    mkdirSync(join(installed, 'references'), { recursive: true });
    writeFileSync(join(installed, 'SKILL.md'), 'See references/style.md');
    writeFileSync(join(installed, 'references', 'style.md'), 'style');
    writeFileSync(join(dir, 'codex-home', 'auth.json'), '{"token":"secret"}');
    const assetsDir = join(dir, 'runtime-assets');
    const openclawHome = join(dir, 'openclaw-home');
    const { linked } = linkPluginSkills({
      assetsDir,
      openclawHome,
      plugins: [
        {
          nativeId: 'notes@local-market',
          skills: [
            { name: 'notes:summarize', path: join(installed, 'SKILL.md'), enabled: true },
            { name: 'notes:off', path: join(dir, 'elsewhere', 'SKILL.md'), enabled: false },
            { name: 'notes:none', path: null, enabled: true },
          ],
        },
      ],
    });
    expect(linked).toBe(1);
    expect(readlinkSync(join(openclawHome, 'plugin-skills'))).toBe(join(assetsDir, 'plugin-skills'));
    expect(readFileSync(join(openclawHome, 'plugin-skills', 'notes@local-market', 'summarize', 'references', 'style.md'), 'utf8')).toBe('style');
    expect(readdirSync(assetsDir)).toEqual(['plugin-skills']);
    expect(readdirSync(join(assetsDir, 'plugin-skills'))).toEqual(['notes@local-market']);
    expect(readdirSync(join(assetsDir, 'plugin-skills', 'notes@local-market'))).toEqual(['summarize']);
    expect(lstatSync(join(assetsDir, 'plugin-skills', 'notes@local-market', 'summarize')).isSymbolicLink()).toBe(true);
    // A second start with no skills leaves no link of the first behind, and the skill's files untouched.
    linkPluginSkills({ assetsDir, openclawHome, plugins: [] });
    expect(readdirSync(join(assetsDir, 'plugin-skills'))).toEqual([]);
    expect(existsSync(join(installed, 'SKILL.md'))).toBe(true);
  });
});
