#!/usr/bin/env node
// Builds the agent runtime image (apps/runtime/Dockerfile): `npm run build:runtime-image --
// [--base <image>] [--tag <tag>] [--no-cache]`. Plain Node, so it runs before anything is compiled.
//
// Two images, both `docker build --network none` (no step needs a network) from a context staged
// in a temporary directory with the repository's layout, files hard-linked where the file system
// allows it:
// - the toolchain image `occ-runtime-toolchain:<key>` (apps/runtime/toolchain.Dockerfile, FROM
//   the base): the toolchain `npm ci` installed (node24/, openclaw/, codex/, about 1.2 GB) and the
//   machine's npm (OpenClaw runs `npm` to install plugins), under /opt/occ. Built only when no
//   image carries its key, a hash of what determines its content (toolchainKey below: the
//   lockfiles, the install script, npm's version, the base's id), not of file times: a clean
//   clone's `npm ci` gives every file a new mtime, and this layer was written again at each run;
// - the runtime image (apps/runtime/Dockerfile, FROM the toolchain image): the runtime's sources,
//   the workspace packages it imports, and ONLY the root node_modules packages in the dependency
//   closure of those package.json files (the app layer, about 14 MB). Its label carries a hash of
//   the toolchain image's id, the Dockerfile and every app file's path, size and mtime (not the
//   bytes); a build whose tag already carries the same hash is skipped.
//
// Older toolchain images are left on the engine (`docker image ls occ-runtime-toolchain`):
// another checkout or run may be about to build FROM one, so only a person removes them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeBundle } from '../apps/runtime/src/launch.ts';

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
export const INPUTS_LABEL = 'org.occ.runtime-inputs';
/** The toolchain image's label: its full key (the tag holds the first 16 hex digits). */
const TOOLCHAIN_LABEL = 'org.occ.runtime-toolchain';
const TOOLCHAIN_REPOSITORY = 'occ-runtime-toolchain';
/** Bumped when what the toolchain image holds changes in a way its key's inputs do not show (staging, links, exclusions). */
const TOOLCHAIN_FORMAT = 'occ-runtime-toolchain/1';
const TOOLCHAIN_DIRS = ['node24', 'openclaw', 'codex'];
/**
 * npm's debug logs in the Codex harness cache: every npm run that names that cache (the fill, a
 * bench, OpenClaw's peer planning on this host) leaves one, with this machine's paths and times.
 * Neither staged nor keyed: nothing reads them, and the runtime copies the cache for each Codex
 * Agent (src/codex/harness-plugin.ts).
 */
const NPM_CACHE_LOGS = 'apps/runtime/codex/npm-cache/_logs';
const DEFAULT_BASE = 'debian:bookworm-slim';
/** The workspace packages (packages/<name>) the runtime imports: staged from source, linked as @occ/<name>. */
const RUNTIME_WORKSPACES = ['contracts', 'policy', 'host-io'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const sha256 = (data) => createHash('sha256').update(data).digest('hex');

export function defaultRuntimeImageTag() {
  return `occ-runtime:${readJson(join(repo, 'apps/runtime/package.json')).version ?? 'dev'}`;
}

/** The machine's npm package directory: where `npm_execpath` points when npm runs this, else Debian's. */
function npmPackageDir() {
  const execPath = process.env.npm_execpath;
  if (execPath?.endsWith('npm-cli.js')) return dirname(dirname(execPath));
  for (const dir of ['/usr/lib/node_modules/npm', '/usr/local/lib/node_modules/npm']) if (existsSync(join(dir, 'bin/npm-cli.js'))) return dir;
  throw new Error('No npm package found to put into the image (looked at npm_execpath, /usr/lib/node_modules/npm, /usr/local/lib/node_modules/npm).');
}

/** Node's resolution of a package name from a directory: the nearest node_modules/<name> above it. */
function findPackage(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === repo || dir === dirname(dir)) return null;
  }
}

/** Root node_modules directories (relative to the repository) the runtime loads at run time. */
export function runtimeDependencyClosure() {
  const found = new Set();
  const visit = (fromDir, name, optional) => {
    if (name.startsWith('@occ/')) return; // workspace packages: staged from source below
    const dir = findPackage(fromDir, name);
    if (dir === null) {
      if (optional) return;
      throw new Error(`${name} (needed from ${relative(repo, fromDir) || '.'}) is not installed: run npm ci.`);
    }
    const rel = relative(repo, dir);
    if (found.has(rel)) return;
    found.add(rel);
    const manifest = readJson(join(dir, 'package.json'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dir, dep, false);
    // Optional and peer dependencies count only where installed (esbuild's one platform binary).
    for (const dep of Object.keys({ ...manifest.optionalDependencies, ...manifest.peerDependencies })) visit(dir, dep, true);
  };
  for (const owner of ['apps/runtime', ...RUNTIME_WORKSPACES.map((name) => `packages/${name}`)]) {
    const dir = join(repo, owner);
    const manifest = readJson(join(dir, 'package.json'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dir, dep, false);
  }
  return [...found].sort();
}

function assertToolchainInstalled() {
  for (const [dir, file] of [
    ['node24', 'node_modules/node/bin/node'],
    ['openclaw', 'node_modules/openclaw/openclaw.mjs'],
    ['codex', 'node_modules/@openai/codex/bin/codex.js'],
  ]) {
    if (!existsSync(join(repo, 'apps/runtime', dir, file))) throw new Error(`apps/runtime/${dir} is not installed (${file} missing): run npm ci first.`);
  }
}

/** What the app layer puts under /opt/occ, as [source, path under /opt/occ]: the sources and the few root modules. */
function appInputs() {
  const sources = [
    'apps/runtime/src',
    'apps/runtime/docker',
    'apps/runtime/package.json',
    ...RUNTIME_WORKSPACES.flatMap((name) => [`packages/${name}/src`, `packages/${name}/package.json`]),
  ];
  return [...sources, ...runtimeDependencyClosure()].map((path) => [join(repo, path), path]);
}

/**
 * This checkout's own bundle of the runtime (apps/runtime/src/runtime-bundle.ts, for the runtimes it
 * starts on this host; rebuilt whenever the sources change): never part of the image, nor of its key.
 */
const LOCAL_BUNDLE = /^\.entry\.bundle\./;

function walk(path, visit) {
  const stat = lstatSync(path);
  visit(path, stat);
  if (stat.isDirectory()) for (const entry of readdirSync(path).sort()) if (!LOCAL_BUNDLE.test(entry)) walk(join(path, entry), visit);
}

/** Path, size and mtime of every file under `path`: for what has no content key (app sources; anything unexpected in the toolchain). */
function listing(path, hash) {
  walk(path, (file, stat) => hash.update(`${relative(repo, file)}\t${stat.isDirectory() ? 'd' : stat.size}\t${Math.trunc(stat.mtimeMs)}\n`));
}

const contentLine = (path) => `${relative(repo, path)}\t${sha256(readFileSync(path))}\n`;

/**
 * The Codex harness cache (install-openclaw.mjs fills it from the registry), by what npm stored:
 * each tarball's URL and integrity (what the Agents' offline install unpacks, so also which
 * versions the fill resolved) and the URLs of the package documents. Not those documents' bytes
 * nor the index entries' times and response headers: they change with every fill (the registry
 * publishes new versions; compared between two CI images of the same lockfiles, only the index
 * files differed), and the offline install resolves the same tarballs from either, so a toolchain
 * image keeps the documents of the fill it was built from.
 */
function npmCacheKey(cacheDir, hash) {
  for (const entry of readdirSync(cacheDir).sort()) {
    const path = join(cacheDir, entry);
    if (relative(repo, path) === NPM_CACHE_LOGS) continue;
    if (entry !== '_cacache') {
      // The `.occ-filled-<version>` marker: its registry names the cache keys (src/toolchain.ts).
      if (lstatSync(path).isFile()) hash.update(contentLine(path));
      else listing(path, hash);
      continue;
    }
    const entries = new Map();
    for (const part of readdirSync(path).sort()) {
      if (part === 'content-v2' || part === 'tmp') continue; // content-v2: named by the integrities below; tmp: npm's scratch
      if (part !== 'index-v5') {
        listing(join(path, part), hash);
        continue;
      }
      walk(join(path, part), (file, stat) => {
        if (!stat.isFile()) return;
        // cacache's index buckets: appended lines `<sha1 of the entry>\t<entry JSON>`; the last one of a key wins, integrity null deletes it.
        for (const line of readFileSync(file, 'utf8').split('\n')) {
          const json = line.slice(line.indexOf('\t') + 1);
          try {
            const { key, integrity } = JSON.parse(json);
            if (typeof key === 'string') entries.set(key, integrity ?? null);
          } catch {
            // a torn line: cacache skips it too
          }
        }
      });
    }
    for (const [key, integrity] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (integrity !== null) hash.update(`cache\t${key}${key.endsWith('.tgz') ? `\t${integrity}` : ''}\n`);
    }
  }
}

/** The C library the installing machine has: npm installs the matching native packages (`@openai/codex`'s binary, OpenClaw's natives). */
function libc() {
  return process.report?.getReport().header.glibcVersionRuntime ? 'glibc' : 'other';
}

/**
 * The toolchain image's key: what determines its content, never a file time. The format, the
 * platform (npm installs its native packages), the base's id, npm's version, the toolchain
 * Dockerfile, apps/runtime/scripts/install-openclaw.mjs (the postinstall that runs `npm ci` in the
 * three directories, then writes the recorded `plugins install --help`, the harness peer link and
 * the harness cache), and per directory: package.json and package-lock.json, the hidden lockfile
 * `node_modules/.package-lock.json` npm writes of what it installed (install-openclaw skips `npm
 * ci` when the direct pins match, so an install can lag its lockfile), the files set-up writes
 * beside them (`.occ-install-help-<version>.txt`: a pinned CLI's help, the same on every machine;
 * kept by content all the same, as a failed recording leaves it out) and the harness cache
 * (npmCacheKey). Packages' own install scripts (the `node` package fetching its platform binary,
 * OpenClaw pruning its dist, prebuilt natives) give the same files for the same versions and
 * platform. Anything else found there is keyed by its listing (path, size, mtime), as before.
 */
function toolchainKey(baseId, npmDir) {
  const npmVersion = readJson(join(npmDir, 'package.json')).version;
  const hash = createHash('sha256').update(`${TOOLCHAIN_FORMAT}\n${process.platform} ${process.arch} ${libc()}\nbase ${baseId}\nnpm ${npmVersion}\n`);
  hash.update(contentLine(join(repo, 'apps/runtime/toolchain.Dockerfile')));
  hash.update(contentLine(join(repo, 'apps/runtime/scripts/install-openclaw.mjs')));
  for (const dir of TOOLCHAIN_DIRS) {
    const root = join(repo, 'apps/runtime', dir);
    for (const entry of readdirSync(root).sort()) {
      const path = join(root, entry);
      const hiddenLockfile = join(path, '.package-lock.json');
      if (entry === 'node_modules' && existsSync(hiddenLockfile)) hash.update(contentLine(hiddenLockfile));
      else if (entry === 'npm-cache' && dir === 'codex') npmCacheKey(path, hash);
      else if (lstatSync(path).isFile()) hash.update(contentLine(path));
      else listing(path, hash);
    }
  }
  return hash.digest('hex');
}

/** COPY keeps modes: a file others could write would be writable in the image. */
function assertNotWritable(path, stat) {
  if (!stat.isSymbolicLink() && (stat.mode & 0o022) !== 0) throw new Error(`${path} is writable by group or others; it would be in the image too.`);
}

/** Hard links where possible (same file system), copies otherwise; links stay links. */
function stage(source, target) {
  const stat = lstatSync(source);
  assertNotWritable(source, stat);
  mkdirSync(dirname(target), { recursive: true });
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
  else if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source)) {
      if (relative(repo, join(source, entry)) !== NPM_CACHE_LOGS && !LOCAL_BUNDLE.test(entry)) stage(join(source, entry), join(target, entry));
    }
  } else {
    try {
      linkSync(source, target);
    } catch {
      copyFileSync(source, target);
    }
  }
}

function docker(args, options = {}) {
  return spawnSync('docker', args, { encoding: 'utf8', ...options, env: { ...process.env, DOCKER_BUILDKIT: '0', ...options.env } });
}

function imageInspect(image, format) {
  const result = docker(['image', 'inspect', '--format', format, image]);
  return result.status === 0 ? result.stdout.trim() : null;
}

/** `docker build --network none` of a staged context; the replaced image (same tag) is removed, ignored while a container or child image uses it. */
function dockerBuild(context, tag, buildArgs, { quiet, noCache }) {
  const previous = imageInspect(tag, '{{.Id}}');
  const args = ['build', ...(noCache ? ['--no-cache'] : []), '--network', 'none', ...buildArgs.flatMap((arg) => ['--build-arg', arg]), '-t', tag, context];
  const result = docker(args, quiet ? {} : { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`docker build of ${tag} failed (exit ${result.status ?? result.signal})${quiet ? `:\n${result.stdout}\n${result.stderr}` : ''}`);
  const id = imageInspect(tag, '{{.Id}}');
  if (previous !== null && previous !== id) docker(['image', 'rm', previous]);
  return id;
}

/** The toolchain image of this checkout's toolchain, built unless an image already carries its key. */
function ensureToolchainImage({ base, baseId, quiet, noCache }) {
  const started = Date.now();
  const npmDir = npmPackageDir();
  const key = toolchainKey(baseId, npmDir);
  const tag = `${TOOLCHAIN_REPOSITORY}:${key.slice(0, 16)}`;
  if (!noCache && imageInspect(tag, `{{ index .Config.Labels "${TOOLCHAIN_LABEL}" }}`) === key) {
    return { tag, id: imageInspect(tag, '{{.Id}}'), built: false, ms: Date.now() - started };
  }
  const context = mkdtempSync(join(tmpdir(), 'occ-runtime-toolchain-'));
  try {
    for (const dir of TOOLCHAIN_DIRS) stage(join(repo, 'apps/runtime', dir), join(context, 'toolchain/apps/runtime', dir));
    stage(npmDir, join(context, 'toolchain/npm'));
    // npm on PATH beside the pinned node (the image's PATH starts with this bin directory).
    const bin = join(context, 'toolchain/apps/runtime/node24/node_modules/.bin');
    symlinkSync('../../../../../npm/bin/npm-cli.js', join(bin, 'npm'));
    symlinkSync('../../../../../npm/bin/npx-cli.js', join(bin, 'npx'));
    cpSync(join(repo, 'apps/runtime/toolchain.Dockerfile'), join(context, 'Dockerfile'));
    const id = dockerBuild(context, tag, [`BASE_IMAGE=${base}`, `OCC_TOOLCHAIN_KEY=${key}`], { quiet, noCache });
    return { tag, id, built: true, ms: Date.now() - started };
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** The runtime image's label: the toolchain image's id, the Dockerfile, every app file's path, size and mtime. */
function appHash(inputs, toolchainId) {
  const hash = createHash('sha256')
    .update(`toolchain ${toolchainId}\n`)
    .update(readFileSync(join(repo, 'apps/runtime/Dockerfile')));
  for (const [source] of inputs) listing(source, hash);
  return hash.digest('hex');
}

/**
 * Builds the runtime image unless `tag` already carries the hash of the same inputs, on the
 * toolchain image (built first unless one carries the same key). `quiet` keeps docker's build
 * output unless a build fails; `noCache` rebuilds every layer of both.
 */
export function buildRuntimeImage({ base = DEFAULT_BASE, tag = defaultRuntimeImageTag(), quiet = false, noCache = false } = {}) {
  const started = Date.now();
  const baseId = imageInspect(base, '{{.Id}}');
  if (baseId === null) throw new Error(`The base image ${base} is not on this Docker engine (nothing is pulled here; make or load it first).`);
  assertToolchainInstalled();
  const toolchain = ensureToolchainImage({ base, baseId, quiet, noCache });
  const inputs = appInputs();
  const hash = appHash(inputs, toolchain.id);
  const done = (built) => ({ tag, built, hash, ms: Date.now() - started, toolchain: { tag: toolchain.tag, built: toolchain.built, ms: toolchain.ms } });
  if (!noCache && imageInspect(tag, `{{ index .Config.Labels "${INPUTS_LABEL}" }}`) === hash) return done(false);

  const context = mkdtempSync(join(tmpdir(), 'occ-runtime-image-'));
  try {
    for (const [source, target] of inputs) stage(source, join(context, 'app', target));
    // What the entrypoint runs: the runtime as one module, built from the sources just staged.
    const bundle = runtimeBundle();
    stage(bundle, join(context, 'app', relative(repo, bundle)));
    // The workspace links npm makes at the root, so `@occ/contracts` resolves as in the repository.
    mkdirSync(join(context, 'app/node_modules/@occ'), { recursive: true });
    for (const name of RUNTIME_WORKSPACES) symlinkSync(`../../packages/${name}`, join(context, 'app/node_modules/@occ', name));
    cpSync(join(repo, 'apps/runtime/Dockerfile'), join(context, 'Dockerfile'));
    const version = readJson(join(repo, 'apps/runtime/package.json')).version ?? 'dev';
    dockerBuild(context, tag, [`TOOLCHAIN_IMAGE=${toolchain.tag}`, `OCC_VERSION=${version}`, `OCC_INPUTS_HASH=${hash}`], { quiet, noCache });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  return done(true);
}

/** The toolchain images on the engine other than `current`, as `tag size` lines (they are kept; see the header). */
function otherToolchainImages(current) {
  const listed = docker(['image', 'ls', TOOLCHAIN_REPOSITORY, '--format', '{{.Repository}}:{{.Tag}} {{.Size}}']);
  return listed.status === 0 ? listed.stdout.split('\n').filter((line) => line !== '' && !line.startsWith(`${current} `)) : [];
}

function parseArguments(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if ((flag === '--base' || flag === '--tag') && value) {
      options[flag.slice(2)] = value;
      i += 1;
    } else if (flag === '--no-cache') options.noCache = true;
    else throw new Error(`Unknown argument ${flag}. Usage: build-runtime-image.mjs [--base <image>] [--tag <tag>] [--no-cache]`);
  }
  return options;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const result = buildRuntimeImage(parseArguments(process.argv.slice(2)));
    const toolchain = result.toolchain;
    console.log(`${toolchain.tag}: ${toolchain.built ? 'built' : 'up to date (same key)'} in ${(toolchain.ms / 1000).toFixed(1)} s`);
    console.log(`${result.tag}: ${result.built ? 'built' : 'up to date (same inputs)'} in ${(result.ms / 1000).toFixed(1)} s`);
    const others = otherToolchainImages(toolchain.tag);
    if (others.length > 0) console.log(`Older toolchain images, kept (remove with docker image rm once no build or container needs them): ${others.join(', ')}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
