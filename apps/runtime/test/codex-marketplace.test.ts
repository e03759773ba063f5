import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppServerError, type AppServerClient } from '../src/codex/app-server-client.ts';
import { readCodexPluginDetails } from '../src/codex/plugin-details.ts';
import { startPinnedAppServer } from './support/pinned-app-server.ts';

// The real `codex app-server` against the local marketplace fixture (test-support/codex-marketplace):
// how plugin/list, plugin/read and plugin/install answer, which the Codex runtime path builds on.
const marketplaceRoot = fileURLToPath(new URL('../../../test-support/codex-marketplace', import.meta.url));
const marketplacePath = join(marketplaceRoot, '.agents', 'plugins', 'marketplace.json');
let home: string;
let client: AppServerClient;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'occ-codex-home-'));
  client = await startPinnedAppServer(home, marketplaceRoot);
}, 60_000);
afterEach(async () => {
  await client?.close();
  rmSync(home, { recursive: true, force: true });
});

interface Summary {
  id: string;
  name: string;
  installed: boolean;
  enabled: boolean;
  installPolicy: string;
  authPolicy: string;
}
const listed = async () => {
  const { marketplaces } = await client.request<{ marketplaces: { name: string; path: string; plugins: Summary[] }[] }>('plugin/list', { cwds: [marketplaceRoot] });
  return marketplaces;
};

describe('codex app-server with a local marketplace', () => {
  it('lists the marketplace with its plugins as `<plugin>@<marketplace>`, none installed', async () => {
    const marketplaces = await listed();
    expect(marketplaces.map((m) => [m.name, m.path])).toEqual([['occ-fixtures', marketplacePath]]);
    expect(marketplaces[0]!.plugins.map((p) => [p.id, p.installed, p.enabled, p.installPolicy, p.authPolicy])).toEqual([
      ['good@occ-fixtures', false, false, 'AVAILABLE', 'ON_INSTALL'],
      ['rejected@occ-fixtures', false, false, 'NOT_AVAILABLE', 'ON_INSTALL'],
    ]);
  });

  it("reads a plugin's detail: its skills, and no apps, app templates or MCP servers", async () => {
    const { plugin } = await client.request<{ plugin: Record<string, unknown> }>('plugin/read', { marketplacePath, pluginName: 'good' });
    expect(plugin).toMatchObject({ marketplaceName: 'occ-fixtures', apps: [], appTemplates: [], mcpServers: [] });
    expect((plugin.skills as { name: string }[]).map((s) => s.name)).toEqual(['good:hello']);
  });

  it('installs an available plugin (no app needs authentication), after which it is listed installed and enabled', async () => {
    expect(await client.request('plugin/install', { marketplacePath, pluginName: 'good' })).toEqual({ authPolicy: 'ON_INSTALL', appsNeedingAuth: [] });
    const good = (await listed())[0]!.plugins.find((p) => p.name === 'good')!;
    expect([good.installed, good.enabled]).toEqual([true, true]);
  });

  it('refuses to install a plugin its marketplace does not make available: a JSON-RPC error, nothing installed', async () => {
    const error = await client.request('plugin/install', { marketplacePath, pluginName: 'rejected' }).then(
      () => undefined,
      (e: unknown) => e as AppServerError,
    );
    expect(error).toBeInstanceOf(AppServerError);
    expect([error!.kind, error!.rpcCode]).toEqual(['rpc', -32600]);
    expect((await listed())[0]!.plugins.find((p) => p.name === 'rejected')!.installed).toBe(false);
  });

  it('[X-3] readCodexPluginDetails reads the selections from the real app-server in selection order; an unknown plugin fails the read', async () => {
    const details = await readCodexPluginDetails<{ summary: { id: string } }>(client, [
      { marketplacePath, pluginName: 'rejected' },
      { marketplacePath, pluginName: 'good' },
      { marketplacePath, pluginName: 'rejected' },
    ]);
    expect(details.map((d) => d.summary.id)).toEqual(['rejected@occ-fixtures', 'good@occ-fixtures', 'rejected@occ-fixtures']);
    const error = await readCodexPluginDetails(client, [
      { marketplacePath, pluginName: 'good' },
      { marketplacePath, pluginName: 'missing' },
    ]).then(
      () => undefined,
      (e: unknown) => e as AppServerError,
    );
    expect([error?.kind, error?.rpcCode]).toEqual(['rpc', -32600]);
  });
});
