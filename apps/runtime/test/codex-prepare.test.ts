import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginMap } from '@occ/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupFailure } from '../src/failure.ts';
import type { AppServerClient } from '../src/codex/app-server-client.ts';
import { prepareCodexHome } from '../src/codex/home.ts';
import { prepareCodexRevision, type CodexPrepareInput } from '../src/codex/prepare-codex.ts';
import { startPinnedAppServer } from './support/pinned-app-server.ts';
import { testManifest } from './support/runtime-process.ts';

// The whole Codex preparation against the real `codex app-server` and the local marketplace
// fixture (test-support/codex-marketplace): plugins with skills, one install the marketplace refuses.
const marketplaceRoot = fileURLToPath(new URL('../../../test-support/codex-marketplace', import.meta.url));
let root: string;
let client: AppServerClient | undefined;

beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'occ-codex-prepare-'))));
afterEach(async () => {
  await client?.close();
  client = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function prepare(selections: PluginMap, workspaceLayer?: string) {
  const home = join(root, 'codex-home');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  prepareCodexHome(home, { pluginsEnabled: Object.values(selections).some((s) => s.enabled) });
  if (workspaceLayer !== undefined) {
    // An operator-trusted workspace whose `.codex/config.toml` layer sits above the revision's own.
    mkdirSync(join(workspace, '.codex'));
    writeFileSync(join(workspace, '.codex', 'config.toml'), workspaceLayer);
    appendFileSync(join(home, 'config.toml'), `\n[projects.${JSON.stringify(workspace)}]\ntrust_level = "trusted"\n`);
  }
  client = await startPinnedAppServer(home, workspace);
  const manifest = { ...testManifest(selections, {}), harness: 'codex' as const, plugins: { driverId: 'codex-hosted', selections, approvers: null } };
  const input: CodexPrepareInput = {
    client,
    manifest,
    marketplaces: [marketplaceRoot],
    workspace,
    assetsDir: join(root, 'runtime-assets'),
    openclawHome: join(root, 'openclaw-home'),
    installTimeoutMs: 30_000,
    signal: new AbortController().signal,
  };
  return { home, input, result: await prepareCodexRevision(input).catch((error: unknown) => error as StartupFailure) };
}

describe('prepareCodexRevision on the real app-server', () => {
  it('[X-1] [X-4] [X-8] [W-1] [S-4] installs the selections one by one, warns for the refused one, writes the app configuration and links the skills', async () => {
    const { home, result } = await prepare({
      'codex:good@occ-fixtures': { enabled: true },
      'codex:rejected@occ-fixtures': { enabled: true },
    });
    if (result instanceof Error) throw result;
    expect(result.plugins).toEqual(['codex:good@occ-fixtures']);
    expect(result.failures).toEqual([{ pluginId: 'codex:rejected@occ-fixtures', code: 'PLUGIN_INSTALL_FAILED' }]);
    expect(result.artifact.bridge.plugins.entries.codex.config.codexPlugins).toEqual({
      enabled: true,
      allow_all_plugins: false,
      plugins: {
        'good@occ-fixtures': expect.objectContaining({ enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' }),
        'rejected@occ-fixtures': expect.objectContaining({ enabled: false, marketplaceName: 'occ-fixtures', pluginName: 'rejected' }),
      },
    });
    const config = readFileSync(join(home, 'config.toml'), 'utf8');
    expect(config).toMatch(/\[features\][^[]*apps = true/);
    expect(config).toMatch(/\[apps\._default\][^[]*enabled = false/);
    const skill = join(root, 'openclaw-home', 'plugin-skills', 'good@occ-fixtures', 'hello', 'SKILL.md');
    expect(readFileSync(skill, 'utf8')).toContain('hello');
    expect(readdirSync(join(root, 'runtime-assets'))).toEqual(['plugin-skills']);
    expect(existsSync(join(home, 'auth.json'))).toBe(false);
    // Where an install lands: the tests below prove "nothing installed" by its absence.
    expect(existsSync(join(home, 'plugins', 'cache'))).toBe(true);
  }, 90_000);

  it('[S-3] [X-14] with no selection (or only disabled ones) the app-server is still read; nothing is installed and nothing is published', async () => {
    const { home, result } = await prepare({ 'codex:good@occ-fixtures': { enabled: false } });
    if (result instanceof Error) throw result;
    expect(result).toMatchObject({ plugins: [], failures: [] });
    expect(result.artifact.features).toEqual({ apps: false, plugins: false, remote_plugin: false });
    expect(existsSync(join(home, 'plugins', 'cache'))).toBe(false);
  }, 90_000);

  it('[W-2] a selection no marketplace lists fails the startup before anything is installed', async () => {
    const { home, result } = await prepare({ 'codex:good@occ-fixtures': { enabled: true }, 'codex:missing@occ-fixtures': { enabled: true } });
    expect(result).toBeInstanceOf(StartupFailure);
    expect((result as StartupFailure).code).toBe('PLUGIN_NOT_IN_CATALOG');
    expect(existsSync(join(home, 'plugins', 'cache'))).toBe(false);
  }, 90_000);

  it('[X-6] a policy the plan refuses fails the startup before any install', async () => {
    const { home, result } = await prepare({ 'codex:good@occ-fixtures': { enabled: true, driverPolicy: { restrictSkills: true } } });
    expect(result).toBeInstanceOf(StartupFailure);
    expect((result as StartupFailure).code).toBe('PLUGIN_POLICY_INVALID');
    expect(existsSync(join(home, 'plugins', 'cache'))).toBe(false);
  }, 90_000);

  it('[X-15] a trusted workspace layer that turns on an app the revision did not select fails the readback before readiness', async () => {
    const { result } = await prepare({ 'codex:good@occ-fixtures': { enabled: true } }, '[apps.calendar]\nenabled = true\n');
    expect(result).toBeInstanceOf(StartupFailure);
    expect((result as StartupFailure).code).toBe('CONFIG_VERIFICATION_FAILED');
  }, 90_000);

  it('[X-15] a trusted workspace layer that agrees with the revision passes', async () => {
    const { result } = await prepare({ 'codex:good@occ-fixtures': { enabled: true } }, 'model = "gpt-test"\n');
    if (result instanceof Error) throw result;
    expect(result.plugins).toEqual(['codex:good@occ-fixtures']);
  }, 90_000);
});
