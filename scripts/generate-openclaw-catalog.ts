/**
 * Generates the curated OpenClaw catalog (packages/policy/src/openclaw/openclaw-catalog.json)
 * from real metadata:
 * - bundled plugins: the pinned `openclaw` CLI's own listing (`plugins list --json`, run with the
 *   pinned Node 24 under a throwaway HOME/OPENCLAW_STATE_DIR) and each listed plugin's manifest;
 * - npm-distributed plugins: scripts/openclaw-curated-npm-plugins.json, each read from the npm
 *   registry (`npm view`, `npm pack`) and its tarball's `openclaw.plugin.json`.
 * The output is deterministic (sorted, fixed key order), so regenerating without upstream changes
 * yields the committed file byte for byte.
 *
 *   node --import tsx scripts/generate-openclaw-catalog.ts [--out PATH]   (npm run catalog:openclaw)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { isJsonObject } from '../packages/contracts/src/json.ts';
import { pinnedToolchain, type PinnedToolchain } from '../apps/runtime/src/toolchain.ts';
import type { OpenClawCatalog, OpenClawCatalogPlugin } from '../packages/policy/src/openclaw/catalog.ts';
import { parseOpenClawCatalog } from '../packages/policy/src/openclaw/catalog-parse.ts';

const run = promisify(execFile);

export const REPO_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const CATALOG_PATH = join(REPO_ROOT, 'packages/policy/src/openclaw/openclaw-catalog.json');
export const CURATED_NPM_PLUGINS_PATH = join(REPO_ROOT, 'scripts/openclaw-curated-npm-plugins.json');

const COMMAND_TIMEOUT_MS = 180_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

type Json = Record<string, unknown>;
type Runtime = OpenClawCatalog['runtime'];

export interface NpmPluginPin {
  package: string;
  version: string;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Sorted by UTF-16 code units (never locale order), duplicates removed. */
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

/**
 * The agent tools a plugin can have, as far as its manifest tells: the pinned runtime refuses
 * `registerTool` for any name missing from `contracts.tools`, so without channels or MCP servers
 * that list is complete (and `[]` means none). A channel may add tools through its `agentTools`
 * hook and an MCP server lists its tools only at run time: those plugins' tools are unknown (null).
 */
export function manifestTools(manifest: Json): string[] | null {
  if (stringList(manifest.channels).length > 0) return null;
  if (isJsonObject(manifest.mcpServers) && Object.keys(manifest.mcpServers).length > 0) return null;
  const contracts = isJsonObject(manifest.contracts) ? manifest.contracts : {};
  return sortedUnique(
    stringList(contracts.tools)
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/** The pinned runtime: the installed version, which must be the lockfile's, with its integrity. */
export async function readPinnedRuntime(toolchain: PinnedToolchain = pinnedToolchain()): Promise<Runtime> {
  const installed = await readJson(join(toolchain.openclawDir, 'node_modules/openclaw/package.json'));
  const lock = await readJson(join(toolchain.openclawDir, 'package-lock.json'));
  const locked = isJsonObject(lock) && isJsonObject(lock.packages) ? lock.packages['node_modules/openclaw'] : undefined;
  if (!isJsonObject(installed) || !isJsonObject(locked) || typeof locked.integrity !== 'string') {
    throw new Error('The pinned openclaw is not installed (npm install runs apps/runtime/scripts/install-openclaw.mjs)');
  }
  if (installed.version !== locked.version) {
    throw new Error(`Installed openclaw ${String(installed.version)} is not the locked ${String(locked.version)}`);
  }
  return { package: 'openclaw', version: String(locked.version), integrity: locked.integrity };
}

/** Runs the pinned CLI with the pinned Node in a throwaway home, so no operator state leaks in. */
async function runOpenClaw(toolchain: PinnedToolchain, args: string[]): Promise<unknown> {
  const home = await mkdtemp(join(tmpdir(), 'occ-openclaw-catalog-'));
  try {
    const env = {
      PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`,
      HOME: home,
      OPENCLAW_STATE_DIR: join(home, 'state'),
      NO_COLOR: '1',
    };
    const { stdout } = await run(toolchain.nodeBinary, [toolchain.openclawEntry, ...args], {
      cwd: home,
      env,
      timeout: COMMAND_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT,
    });
    return JSON.parse(stdout) as unknown;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** The runtime's bundled plugins, from `openclaw plugins list --json` and each plugin's manifest. */
export async function readBundledPlugins(runtime: Runtime, toolchain: PinnedToolchain = pinnedToolchain()): Promise<OpenClawCatalogPlugin[]> {
  const listing = await runOpenClaw(toolchain, ['plugins', 'list', '--json']);
  if (!isJsonObject(listing) || !Array.isArray(listing.plugins)) throw new Error('`openclaw plugins list --json` returned no plugin list');
  const plugins: OpenClawCatalogPlugin[] = [];
  for (const listed of listing.plugins) {
    if (!isJsonObject(listed) || listed.origin !== 'bundled') continue;
    const id = String(listed.id);
    if (listed.version !== undefined && listed.version !== runtime.version) {
      throw new Error(`Bundled plugin ${id} reports version ${String(listed.version)}, not the runtime's ${runtime.version}`);
    }
    if (listed.format !== 'openclaw') throw new Error(`Bundled plugin ${id} has format ${String(listed.format)}; only openclaw manifests are read`);
    const manifest = await readJson(join(String(listed.rootDir), 'openclaw.plugin.json'));
    if (!isJsonObject(manifest) || manifest.id !== id) throw new Error(`Bundled plugin ${id}: its manifest names another id`);
    // The CLI derives toolNames from the same manifest; a disagreement means this script's rule is stale.
    const declared = sortedUnique(stringList(isJsonObject(manifest.contracts) ? manifest.contracts.tools : undefined));
    if (JSON.stringify(declared) !== JSON.stringify(sortedUnique(stringList(listed.toolNames)))) {
      throw new Error(`Bundled plugin ${id}: the CLI's toolNames differ from the manifest's contracts.tools`);
    }
    plugins.push({
      id,
      pluginId: id,
      name: typeof listed.name === 'string' && listed.name ? listed.name : id,
      description: typeof listed.description === 'string' ? listed.description : '',
      source: 'bundled',
      package: runtime.package,
      version: runtime.version,
      integrity: runtime.integrity,
      tools: manifestTools(manifest),
    });
  }
  if (plugins.length === 0) throw new Error('The pinned runtime listed no bundled plugins');
  return plugins;
}

function parseDate(version: string): number[] {
  return version.split(/[.+-]/).slice(0, 3).map(Number);
}

/** Only `>=X.Y.Z` ranges are read; anything else needs a human to look at it. */
function checkMinimum(range: unknown, runtimeVersion: string, what: string): void {
  if (range === undefined) return;
  const match = typeof range === 'string' ? /^>=\s*(\d+\.\d+\.\d+)$/.exec(range.trim()) : null;
  if (!match) throw new Error(`${what}: cannot check the range ${JSON.stringify(range)} against openclaw ${runtimeVersion}`);
  const [need, have] = [parseDate(match[1]!), parseDate(runtimeVersion)];
  const order = need.map((part, index) => part - have[index]!).find((delta) => delta !== 0) ?? 0;
  if (order > 0) throw new Error(`${what}: needs openclaw ${range}, the pinned runtime is ${runtimeVersion}`);
}

async function npm(args: string[], cwd: string): Promise<unknown> {
  const { stdout } = await run('npm', [...args, '--json'], { cwd, timeout: COMMAND_TIMEOUT_MS, maxBuffer: MAX_OUTPUT });
  return JSON.parse(stdout) as unknown;
}

/** One npm-distributed plugin: registry metadata, compatibility, and the tarball's manifest. */
export async function readNpmPlugin(pin: NpmPluginPin, runtime: Runtime, workDir: string): Promise<OpenClawCatalogPlugin> {
  const spec = `${pin.package}@${pin.version}`;
  const view = await npm(['view', spec, 'name', 'version', 'description', 'dist.integrity', 'peerDependencies', 'openclaw'], workDir);
  if (!isJsonObject(view) || view.name !== pin.package || view.version !== pin.version) throw new Error(`${spec}: the registry has no such version`);
  const integrity = view['dist.integrity'];
  if (typeof integrity !== 'string' || !integrity.startsWith('sha512-')) throw new Error(`${spec}: the registry gives no sha512 integrity`);
  const peers = isJsonObject(view.peerDependencies) ? view.peerDependencies : {};
  const openclaw = isJsonObject(view.openclaw) ? view.openclaw : {};
  checkMinimum(peers.openclaw, runtime.version, `${spec} peerDependencies.openclaw`);
  checkMinimum(isJsonObject(openclaw.compat) ? openclaw.compat.pluginApi : undefined, runtime.version, `${spec} openclaw.compat.pluginApi`);
  checkMinimum(isJsonObject(openclaw.install) ? openclaw.install.minHostVersion : undefined, runtime.version, `${spec} openclaw.install.minHostVersion`);

  const packed = await npm(['pack', spec, '--pack-destination', workDir], workDir);
  const tarball = Array.isArray(packed) && isJsonObject(packed[0]) ? packed[0] : undefined;
  if (!tarball || tarball.integrity !== integrity || typeof tarball.filename !== 'string') {
    throw new Error(`${spec}: the packed tarball does not match the registry integrity`);
  }
  const files = Array.isArray(tarball.files) ? tarball.files.filter(isJsonObject).map((file) => String(file.path)) : [];
  if (!files.includes('openclaw.plugin.json')) throw new Error(`${spec}: no openclaw.plugin.json (not an OpenClaw-format plugin)`);
  const extractDir = await mkdtemp(join(workDir, 'package-'));
  await run('tar', ['-xzf', join(workDir, tarball.filename), '-C', extractDir, 'package/openclaw.plugin.json'], { timeout: COMMAND_TIMEOUT_MS });
  const manifest = await readJson(join(extractDir, 'package/openclaw.plugin.json'));
  if (!isJsonObject(manifest) || typeof manifest.id !== 'string') throw new Error(`${spec}: its manifest has no plugin id`);

  return {
    id: pin.package,
    pluginId: manifest.id,
    name: typeof manifest.name === 'string' && manifest.name ? manifest.name : pin.package,
    description: typeof manifest.description === 'string' ? manifest.description : typeof view.description === 'string' ? view.description : '',
    source: 'npm',
    package: pin.package,
    version: pin.version,
    integrity,
    tools: manifestTools(manifest),
  };
}

export async function readCuratedNpmPins(path = CURATED_NPM_PLUGINS_PATH): Promise<NpmPluginPin[]> {
  const list = await readJson(path);
  if (!isJsonObject(list) || !Array.isArray(list.plugins)) throw new Error(`${path}: expected {"plugins": [{package, version}]}`);
  return list.plugins.map((pin, index) => {
    if (!isJsonObject(pin) || typeof pin.package !== 'string' || typeof pin.version !== 'string') {
      throw new Error(`${path}: plugins[${index}] needs a package and an exact version`);
    }
    return { package: pin.package, version: pin.version };
  });
}

export async function readNpmPlugins(pins: readonly NpmPluginPin[], runtime: Runtime): Promise<OpenClawCatalogPlugin[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'occ-openclaw-npm-'));
  try {
    return await Promise.all(pins.map(async (pin, index) => readNpmPlugin(pin, runtime, await mkdtemp(join(workDir, `${index}-`)))));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Sorts and validates; the parser rejects duplicate ids and plugin ids (e.g. an npm plugin shadowing a bundled one). */
export function assembleOpenClawCatalog(runtime: Runtime, plugins: readonly OpenClawCatalogPlugin[]): OpenClawCatalog {
  const sorted = [...plugins].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return parseOpenClawCatalog({ runtime, plugins: sorted.map((plugin) => ({ ...plugin, tools: plugin.tools && sortedUnique(plugin.tools) })) });
}

export function renderOpenClawCatalog(catalog: OpenClawCatalog): string {
  return `${JSON.stringify(parseOpenClawCatalog(catalog), null, 2)}\n`;
}

export async function generateOpenClawCatalog(toolchain: PinnedToolchain = pinnedToolchain()): Promise<OpenClawCatalog> {
  const runtime = await readPinnedRuntime(toolchain);
  const bundled = await readBundledPlugins(runtime, toolchain);
  const npmPlugins = await readNpmPlugins(await readCuratedNpmPins(), runtime);
  return assembleOpenClawCatalog(runtime, [...bundled, ...npmPlugins]);
}

async function main(argv: string[]): Promise<void> {
  const outIndex = argv.indexOf('--out');
  const out = outIndex >= 0 ? argv[outIndex + 1] : CATALOG_PATH;
  if (!out) throw new Error('usage: generate-openclaw-catalog.ts [--out PATH]');
  const catalog = await generateOpenClawCatalog();
  await writeFile(resolve(out), renderOpenClawCatalog(catalog));
  const npmCount = catalog.plugins.filter((plugin) => plugin.source === 'npm').length;
  console.log(`openclaw ${catalog.runtime.version}: ${catalog.plugins.length - npmCount} bundled + ${npmCount} npm plugins → ${out}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
