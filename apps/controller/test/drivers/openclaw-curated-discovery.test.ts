import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginCatalogEntrySchema, PluginCatalogPageSchema, type PluginCatalogPage } from '@occ/contracts';
import { OpenClawCatalogError, openclawCuratedCatalog, parseOpenClawCatalog, type OpenClawCatalog } from '@occ/policy';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { createPluginDrivers } from '../../src/composition/plugin-drivers.ts';
import { PluginDiscoveryError, type PluginDiscovery, type PluginDiscoveryFailure } from '../../src/core/ports/plugin-driver.ts';
import { CURATED_PAGE_SIZE } from '../../src/drivers/plugin/openclaw-curated/catalog-discovery.ts';
import { createOpenClawCuratedDriver, openclawCatalogFromEnv } from '../../src/drivers/plugin/openclaw-curated/index.ts';

const committed = openclawCuratedCatalog();
const signal = () => new AbortController().signal;

/** A synthetic operator catalog: `count` bundled plugins, every third one a "widget". */
function syntheticCatalog(count: number, label = 'plugin'): OpenClawCatalog {
  const runtime = committed.runtime;
  const plugins = Array.from({ length: count }, (_, index) => {
    const id = `${label}-${String(index).padStart(3, '0')}`;
    const widget = index % 3 === 0;
    return {
      id,
      pluginId: id,
      name: widget ? `Widget ${index}` : `Gadget ${index}`,
      description: widget ? 'Renders a WIDGET.' : 'Does gadget things.',
      source: 'bundled' as const,
      package: runtime.package,
      version: runtime.version,
      integrity: runtime.integrity,
      tools: index % 2 === 0 ? [`tool_${index}`] : null,
    };
  });
  return parseOpenClawCatalog({ runtime, plugins });
}

function discoveryOf(catalog?: OpenClawCatalog): PluginDiscovery {
  return createOpenClawCuratedDriver(catalog ? { catalog } : {}).discovery!;
}

async function failure(call: Promise<unknown>): Promise<PluginDiscoveryFailure> {
  const error = await call.then(
    () => expect.unreachable('discovery succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginDiscoveryError);
  return (error as PluginDiscoveryError).reason;
}

async function allPages(discovery: PluginDiscovery, q?: string): Promise<PluginCatalogPage[]> {
  const pages: PluginCatalogPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await discovery.listCatalog({ q, cursor }, signal());
    expect(Value.Check(PluginCatalogPageSchema, page)).toBe(true);
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

describe('openclaw-curated discovery', () => {
  it('[D-11] needs no credential and accepts none', async () => {
    const discovery = discoveryOf();
    expect(discovery.credential).toBe('none');
    const canary = 'at-canary.Token_0123456789';
    const listError = await discovery.listCatalog({ credential: canary }, signal()).catch((e: unknown) => e);
    expect((listError as PluginDiscoveryError).reason).toBe('credentials_rejected');
    expect(`${String(listError)} ${JSON.stringify(listError)}`).not.toContain(canary);
    expect(await failure(discovery.getCatalogPlugin({ credential: canary, pluginId: 'browser' }, signal()))).toBe('credentials_rejected');
  });

  it('[D-15] pages the whole committed catalog with opaque cursors, 20 a page, in catalog order', async () => {
    const pages = await allPages(discoveryOf());
    const ids = pages.flatMap((page) => page.plugins.map((entry) => entry.id));
    expect(ids).toEqual(committed.plugins.map((plugin) => `openclaw:${plugin.id}`));
    expect(pages.slice(0, -1).every((page) => page.plugins.length === CURATED_PAGE_SIZE)).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    const cursors = pages.slice(0, -1).map((page) => page.nextCursor!);
    for (const cursor of cursors) expect(cursor).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(new Set(cursors).size).toBe(cursors.length);
  });

  it('[D-15] returns the catalogued entries as they are: tools unverified, null when unknown, always available', async () => {
    const entries = (await allPages(discoveryOf())).flatMap((page) => page.plugins);
    for (const entry of entries) expect(Value.Check(PluginCatalogEntrySchema, entry)).toBe(true);
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    expect(byId.get('openclaw:browser')).toMatchObject({
      name: expect.any(String),
      bundled: true,
      package: 'openclaw',
      version: committed.runtime.version,
      integrity: committed.runtime.integrity,
      available: true,
      tools: [{ id: 'browser', ownerId: 'browser', name: 'browser' }],
    });
    const nostr = committed.plugins.find((plugin) => plugin.id === '@openclaw/nostr')!;
    expect(byId.get('openclaw:@openclaw/nostr')).toMatchObject({
      bundled: false,
      package: '@openclaw/nostr',
      version: nostr.version,
      integrity: nostr.integrity,
      available: true,
      selectableWithoutTools: true,
      tools: null,
    });
    expect(entries.every((entry) => entry.available && entry.unavailableReason === undefined)).toBe(true);
  });

  it('[D-15] filters by q, case-insensitively, over id, name and description', async () => {
    const discovery = discoveryOf();
    const ids = async (q: string) => (await allPages(discovery, q)).flatMap((page) => page.plugins.map((entry) => entry.id));
    expect(await ids('MEMORY')).toEqual(expect.arrayContaining(['openclaw:active-memory', 'openclaw:memory-core', 'openclaw:memory-wiki']));
    expect(await ids('  nOsTr ')).toEqual(['openclaw:@openclaw/nostr']);
    expect(await ids('NIP-04 encrypted')).toEqual(['openclaw:@openclaw/nostr']); // description only
    expect(await ids('@openclaw/')).toEqual(
      committed.plugins.filter((plugin) => `${plugin.id} ${plugin.name} ${plugin.description}`.includes('@openclaw/')).map((plugin) => `openclaw:${plugin.id}`),
    );
    expect(await allPages(discovery, 'no plugin is called this')).toEqual([{ plugins: [], nextCursor: null }]);
  });

  it('[D-15] pages a filtered operator catalog and refuses a cursor from another query (invalid_cursor)', async () => {
    const discovery = discoveryOf(syntheticCatalog(130));
    const widgets = await allPages(discovery, 'widget');
    expect(widgets.map((page) => page.plugins.length)).toEqual([20, 20, 4]);
    expect(widgets.flatMap((page) => page.plugins.map((entry) => entry.name))).toEqual(Array.from({ length: 44 }, (_, n) => `Widget ${n * 3}`));
    const cursor = widgets[0]!.nextCursor!;
    // The same query, spelt differently, is the same query.
    expect((await discovery.listCatalog({ q: ' WIDGET ', cursor }, signal())).plugins[0]!.name).toBe('Widget 60');
    expect(await failure(discovery.listCatalog({ q: 'gadget', cursor }, signal()))).toBe('invalid_cursor');
    expect(await failure(discovery.listCatalog({ cursor }, signal()))).toBe('invalid_cursor');
    const unfiltered = (await discovery.listCatalog({}, signal())).nextCursor!;
    expect(await failure(discovery.listCatalog({ q: 'widget', cursor: unfiltered }, signal()))).toBe('invalid_cursor');
  });

  it('[D-15] refuses forged, tampered and foreign-catalog cursors; another replica with the same catalog accepts them', async () => {
    const catalog = syntheticCatalog(50);
    const discovery = discoveryOf(catalog);
    const cursor = (await discovery.listCatalog({}, signal())).nextCursor!;
    const flipped = `${cursor.slice(0, 3)}${cursor[3] === 'A' ? 'B' : 'A'}${cursor.slice(4)}`;
    for (const bad of [flipped, `${cursor}A`, cursor.slice(1), 'x', '!!!!', Buffer.from('{"offset":20}').toString('base64url')]) {
      expect(await failure(discovery.listCatalog({ cursor: bad }, signal()))).toBe('invalid_cursor');
    }
    expect(await failure(discoveryOf(syntheticCatalog(50, 'other')).listCatalog({ cursor }, signal()))).toBe('invalid_cursor');
    expect((await discoveryOf(syntheticCatalog(50)).listCatalog({ cursor }, signal())).plugins[0]!.id).toBe('openclaw:plugin-020');
  });

  it('[D-15] returns details by prefixed or bare selection key, else not_found', async () => {
    const discovery = discoveryOf();
    const prefixed = await discovery.getCatalogPlugin({ pluginId: 'openclaw:@openclaw/nostr' }, signal());
    expect(Value.Check(PluginCatalogEntrySchema, prefixed)).toBe(true);
    expect(await discovery.getCatalogPlugin({ pluginId: '@openclaw/nostr' }, signal())).toEqual(prefixed);
    expect((await discovery.getCatalogPlugin({ pluginId: 'memory-core' }, signal())).tools?.map((tool) => tool.id)).toEqual(
      committed.plugins.find((plugin) => plugin.id === 'memory-core')!.tools,
    );
    for (const pluginId of ['openclaw:', 'nostr', 'openclaw:openclaw:browser', 'Browser', 'left-pad']) {
      expect(await failure(discovery.getCatalogPlugin({ pluginId }, signal()))).toBe('not_found');
    }
  });

  it('takes an operator catalog from OCC_OPENCLAW_CATALOG, validated at startup', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'occ-curated-'));
    try {
      expect(openclawCatalogFromEnv({})).toBeUndefined();
      const good = join(dir, 'good.json');
      await writeFile(good, JSON.stringify(syntheticCatalog(3)));
      const catalog = openclawCatalogFromEnv({ OCC_OPENCLAW_CATALOG: good })!;
      expect((await discoveryOf(catalog).listCatalog({}, signal())).plugins.map((entry) => entry.id)).toEqual([
        'openclaw:plugin-000',
        'openclaw:plugin-001',
        'openclaw:plugin-002',
      ]);
      const bad = join(dir, 'bad.json');
      await writeFile(bad, JSON.stringify({ ...syntheticCatalog(3), plugins: [{ ...syntheticCatalog(1).plugins[0], version: 'latest' }] }));
      expect(() => openclawCatalogFromEnv({ OCC_OPENCLAW_CATALOG: bad })).toThrow(OpenClawCatalogError);
      expect(() => openclawCatalogFromEnv({ OCC_OPENCLAW_CATALOG: bad })).toThrow('/plugins/0/version');
      expect(() => openclawCatalogFromEnv({ OCC_OPENCLAW_CATALOG: join(dir, 'missing.json') })).toThrow('OCC_OPENCLAW_CATALOG');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('[D-11] the default registry gives the openclaw harness curated discovery over the committed catalog', async () => {
    const discovery = createPluginDrivers().openclaw!.discovery!;
    expect(discovery.credential).toBe('none');
    expect((await discovery.getCatalogPlugin({ pluginId: 'browser' }, signal())).id).toBe('openclaw:browser');
  });
});
