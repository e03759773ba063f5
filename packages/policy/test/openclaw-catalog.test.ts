import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_PATH, REPO_ROOT, manifestTools, readBundledPlugins, readPinnedRuntime } from '../../../scripts/generate-openclaw-catalog.ts';
import { OPENCLAW_NATIVE_ID_PATTERN, OpenClawCatalogError, openclawCuratedCatalog, parseOpenClawCatalog, type OpenClawCatalog } from '../src/index.ts';

const SHA512 = /^sha512-[A-Za-z0-9+/]{86}==$/;
const EXACT = /^\d+\.\d+\.\d+$/;

const catalog = openclawCuratedCatalog();
const committedJson = async () => JSON.parse(await readFile(CATALOG_PATH, 'utf8')) as OpenClawCatalog;

describe('the committed curated OpenClaw catalog', () => {
  it('[N-1] parses, is frozen, and keeps ids unique and sorted', async () => {
    expect(parseOpenClawCatalog(await committedJson())).toEqual(catalog);
    expect(Object.isFrozen(catalog.plugins[0])).toBe(true);
    const ids = catalog.plugins.map((plugin) => plugin.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(catalog.plugins.map((plugin) => plugin.pluginId)).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(OPENCLAW_NATIVE_ID_PATTERN);
  });

  it('[N-7] pins every npm plugin to an exact version with its sha512 registry integrity', () => {
    const npm = catalog.plugins.filter((plugin) => plugin.source === 'npm');
    expect(npm.map((plugin) => plugin.id)).toContain('@openclaw/nostr');
    for (const plugin of npm) {
      expect(plugin.package).toBe(plugin.id);
      expect(plugin.version).toMatch(EXACT);
      expect(plugin.integrity).toMatch(SHA512);
    }
  });

  it('[N-7] records the runtime it was read from: the installed, locked openclaw', async () => {
    const installed = JSON.parse(await readFile(join(REPO_ROOT, 'apps/runtime/openclaw/node_modules/openclaw/package.json'), 'utf8')) as { version: string };
    const lock = JSON.parse(await readFile(join(REPO_ROOT, 'apps/runtime/openclaw/package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string; integrity: string }>;
    };
    expect(catalog.runtime).toEqual({ package: 'openclaw', version: installed.version, integrity: lock.packages['node_modules/openclaw']!.integrity });
    for (const plugin of catalog.plugins.filter((entry) => entry.source === 'bundled')) {
      expect(plugin).toMatchObject({ id: plugin.pluginId, package: 'openclaw', version: installed.version, integrity: catalog.runtime.integrity });
    }
  });

  it('[D-15] its bundled part is exactly what the pinned openclaw CLI lists today', async () => {
    const runtime = await readPinnedRuntime();
    const bundled = await readBundledPlugins(runtime);
    expect(bundled.length).toBeGreaterThan(50);
    expect(catalog.plugins.filter((plugin) => plugin.source === 'bundled')).toEqual([...bundled].sort((a, b) => (a.id < b.id ? -1 : 1)));
    // Tools known from the manifest contract, unknown (null) for channels, [] for plugins that declare none.
    expect(catalog.plugins.find((plugin) => plugin.id === 'browser')?.tools).toEqual(['browser']);
    expect(catalog.plugins.find((plugin) => plugin.id === 'telegram')?.tools).toBeNull();
    expect(catalog.plugins.find((plugin) => plugin.id === 'cua-computer')?.tools).toEqual([]);
  });
});

describe('manifestTools', () => {
  it('lists contracts.tools sorted, [] when none are declared (the runtime registers no others)', () => {
    expect(manifestTools({ id: 'x', contracts: { tools: ['b_tool', 'a_tool', 'b_tool'] } })).toEqual(['a_tool', 'b_tool']);
    expect(manifestTools({ id: 'x', contracts: { speechProviders: ['s'] } })).toEqual([]);
  });

  it('is null (unknown) when a channel or an MCP server can add tools at run time', () => {
    expect(manifestTools({ id: 'x', channels: ['chat'], contracts: { tools: ['t'] } })).toBeNull();
    expect(manifestTools({ id: 'x', mcpServers: { docs: { command: 'docs-mcp' } } })).toBeNull();
  });
});

describe('parseOpenClawCatalog', () => {
  const valid = (): OpenClawCatalog => structuredClone(catalog) as OpenClawCatalog;
  const npmIndex = catalog.plugins.findIndex((plugin) => plugin.source === 'npm');
  const bundledIndex = catalog.plugins.findIndex((plugin) => plugin.source === 'bundled');

  function rejection(mutate: (json: Record<string, any>) => void): OpenClawCatalogError {
    const json = valid() as unknown as Record<string, any>;
    mutate(json);
    try {
      parseOpenClawCatalog(json);
    } catch (error) {
      expect(error).toBeInstanceOf(OpenClawCatalogError);
      expect((error as Error).message).toContain((error as OpenClawCatalogError).path);
      return error as OpenClawCatalogError;
    }
    return expect.unreachable('the malformed catalog was accepted');
  }

  it.each<[string, (json: Record<string, any>) => void, string]>([
    ['not an object', (json) => Object.assign(json, { plugins: 'x' }), '/plugins'],
    ['an unknown top-level field', (json) => (json.extra = 1), '/extra'],
    ['a runtime of another package', (json) => (json.runtime.package = 'left-pad'), '/runtime/package'],
    ['a runtime range instead of a version', (json) => (json.runtime.version = '^2026.9.5'), '/runtime/version'],
    ['a missing integrity', (json) => delete json.plugins[npmIndex].integrity, `/plugins/${npmIndex}/integrity`],
    ['a sha1 integrity', (json) => (json.plugins[npmIndex].integrity = 'sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA='), `/plugins/${npmIndex}/integrity`],
    ['an npm version range', (json) => (json.plugins[npmIndex].version = 'latest'), `/plugins/${npmIndex}/version`],
    ['an npm id that is not its package', (json) => (json.plugins[npmIndex].package = '@openclaw/other'), `/plugins/${npmIndex}/package`],
    ['an unknown source', (json) => (json.plugins[npmIndex].source = 'git'), `/plugins/${npmIndex}/source`],
    ['a bundled plugin of another version', (json) => (json.plugins[bundledIndex].version = '1.0.0'), `/plugins/${bundledIndex}/version`],
    ['a bundled id unlike its plugin id', (json) => (json.plugins[bundledIndex].pluginId = 'other'), `/plugins/${bundledIndex}/id`],
    ['an invalid selection key', (json) => (json.plugins[npmIndex].id = 'Not A Key'), `/plugins/${npmIndex}/id`],
    ['tools that are not a list', (json) => (json.plugins[bundledIndex].tools = 'browser'), `/plugins/${bundledIndex}/tools`],
    ['an unsorted tool list', (json) => (json.plugins[bundledIndex].tools = ['b', 'a']), `/plugins/${bundledIndex}/tools/1`],
    ['a blank name', (json) => (json.plugins[bundledIndex].name = ' '), `/plugins/${bundledIndex}/name`],
    ['an unknown plugin field', (json) => (json.plugins[bundledIndex].downloadUrl = 'https://x'), `/plugins/${bundledIndex}/downloadUrl`],
    ['unsorted ids', (json) => json.plugins.reverse(), '/plugins/1/id'],
    ['a repeated id', (json) => json.plugins.splice(1, 0, json.plugins[0]), '/plugins/1/id'],
  ])('rejects %s, naming the field', (_case, mutate, path) => {
    expect(rejection(mutate).path).toBe(path);
  });

  it('rejects two entries configuring the same OpenClaw plugin id', () => {
    const error = rejection((json) => {
      const shadow = { ...json.plugins[npmIndex], id: 'zz-shadow', package: 'zz-shadow', pluginId: 'browser' };
      json.plugins.push(shadow);
    });
    expect(error.path).toBe(`/plugins/${catalog.plugins.length}/pluginId`);
  });
});
