// A real npm registry for the runtime tests: verdaccio 6.8.0 in this process on 127.0.0.1:0,
// storage in a temporary directory, no uplinks (nothing leaves the machine), open to anonymous
// publishing; the fixture OpenClaw plugins (test-support/fixture-plugins/) published to it with
// the real `npm publish`.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runServer } from 'verdaccio';
import './vitest/provided-context.ts';
import { openclawCuratedCatalog, parseOpenClawCatalog, type OpenClawCatalog, type OpenClawCatalogPlugin } from '@occ/policy';

const run = promisify(execFile);
const fixturesDir = fileURLToPath(new URL('./fixture-plugins/', import.meta.url));

/** The three fixture plugins: their npm package, OpenClaw plugin id and tools (as their manifests declare). */
export const FIXTURE_PLUGINS = {
  good: { package: '@occ-fixtures/openclaw-good', pluginId: 'occ-fixture-good', tools: ['fixture_clock', 'fixture_echo', 'fixture_write'] },
  rejected: { package: '@occ-fixtures/openclaw-rejected', pluginId: 'occ-fixture-rejected', tools: ['rejected_tool'] },
  tampered: { package: '@occ-fixtures/openclaw-tampered', pluginId: 'occ-fixture-tampered', tools: ['tampered_clock', 'tampered_echo', 'tampered_write'] },
} as const;
export type FixtureName = keyof typeof FIXTURE_PLUGINS;
const FIXTURE_VERSION = '1.0.0';

/** A valid sha512 integrity that no published fixture has: what the test catalog records for `tampered`. */
const WRONG_INTEGRITY = `sha512-${Buffer.alloc(64, 7).toString('base64')}`;

export interface FixtureRegistry {
  /** The registry URL (ends with `/`): OCC_RUNTIME_NPM_REGISTRY. */
  url: string;
  /** The committed catalog plus the fixtures with their real published integrity (`tampered`: WRONG_INTEGRITY). */
  catalog: OpenClawCatalog;
  /** The integrity the registry really serves, per fixture. */
  published: Record<FixtureName, string>;
  close(): Promise<void>;
}

export async function startFixtureRegistry(): Promise<FixtureRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'occ-npm-registry-'));
  const app = await runServer({
    self_path: dir,
    storage: join(dir, 'storage'),
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$anonymous', unpublish: '$anonymous' } },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    web: { enable: false },
  } as never);
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const npmrc = join(dir, 'npmrc');
    // npm refuses to publish without credentials; verdaccio accepts anonymous publishes whatever the token.
    writeFileSync(npmrc, `//${new URL(url).host}/:_authToken=anonymous\n`);
    const names = Object.keys(FIXTURE_PLUGINS) as FixtureName[];
    await Promise.all(
      names.map((name) =>
        run('npm', ['publish', join(fixturesDir, name), '--registry', url, '--userconfig', npmrc, '--cache', join(dir, 'npm-cache'), '--no-git-checks', '--ignore-scripts'], {
          env: { PATH: process.env.PATH ?? '', HOME: dir },
        }),
      ),
    );
    const published = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await publishedIntegrity(url, FIXTURE_PLUGINS[name].package)]))) as Record<
      FixtureName,
      string
    >;
    return { url, catalog: fixtureCatalog(published), published, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function publishedIntegrity(url: string, packageName: string): Promise<string> {
  const response = await fetch(new URL(encodeURIComponent(packageName).replace('%40', '@'), url));
  const packument = (await response.json()) as { versions?: Record<string, { dist?: { integrity?: string } }> };
  const integrity = packument.versions?.[FIXTURE_VERSION]?.dist?.integrity;
  if (typeof integrity !== 'string') throw new Error(`registry has no integrity for ${packageName}@${FIXTURE_VERSION}`);
  return integrity;
}

/** The committed catalog plus one npm entry per fixture, validated like any catalog file. */
function fixtureCatalog(published: Record<FixtureName, string>): OpenClawCatalog {
  const base = openclawCuratedCatalog();
  const fixtures: OpenClawCatalogPlugin[] = (Object.keys(FIXTURE_PLUGINS) as FixtureName[]).map((name) => ({
    id: FIXTURE_PLUGINS[name].package,
    pluginId: FIXTURE_PLUGINS[name].pluginId,
    name: `OCC fixture (${name})`,
    description: `OCC test fixture plugin (${name}).`,
    source: 'npm',
    package: FIXTURE_PLUGINS[name].package,
    version: FIXTURE_VERSION,
    integrity: name === 'tampered' ? WRONG_INTEGRITY : published[name],
    tools: [...FIXTURE_PLUGINS[name].tools],
  }));
  const plugins = [...base.plugins, ...fixtures].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return parseOpenClawCatalog(JSON.parse(JSON.stringify({ runtime: base.runtime, plugins })));
}

/**
 * The run's shared fixture registry (started once by test-support/vitest/fixture-registry.global.ts
 * for the runtime and e2e projects); closing it is the global setup's job. Outside those projects
 * (a bench, a file run on its own) a private one is started and closed by the caller.
 */
export async function useFixtureRegistry(): Promise<FixtureRegistry> {
  let shared: { url: string; published: Record<FixtureName, string> } | undefined;
  try {
    const { inject } = await import('vitest');
    shared = inject('fixtureRegistry');
  } catch {
    shared = undefined;
  }
  if (!shared) return startFixtureRegistry();
  return { url: shared.url, published: shared.published, catalog: fixtureCatalog(shared.published), close: async () => {} };
}
