#!/usr/bin/env node
// Builds the agent runtime image (apps/runtime/Dockerfile): `npm run build:runtime-image --
// [--base <image>] [--tag <tag>] [--no-cache]`. Plain Node, so it runs before anything is compiled.
//
// The build context is staged in a temporary directory with the repository's layout under
// toolchain/ and app/ (both copied to /opt/occ, as two layers): the runtime's sources, the toolchain `npm ci` installed (node24/,
// openclaw/, codex/), the two workspace packages it imports, ONLY the root node_modules packages
// in the dependency closure of those three package.json files, and the machine's npm (OpenClaw
// runs `npm` to install plugins). Files are hard-linked where the file system allows it (the
// toolchain is about 1.2 GB). `docker build --network none`: no step needs a network.
//
// Cache: the image carries a label with a hash of its inputs (the base image's id, and every
// staged file's path, size and mtime — not the bytes: `npm ci` rewrites what changes); a build
// whose tag already carries the same hash is skipped.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
export const INPUTS_LABEL = 'org.occ.runtime-inputs';
const DEFAULT_BASE = 'debian:bookworm-slim';
/** The workspace packages (packages/<name>) the runtime imports: staged from source, linked as @occ/<name>. */
const RUNTIME_WORKSPACES = ['contracts', 'policy', 'host-io'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

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

/**
 * What goes to /opt/occ, as [source, layer, path under /opt/occ]: the toolchain layer (large,
 * changed only by `npm ci`) and the app layer (sources and the few root modules).
 */
function stagedInputs() {
  for (const [dir, file] of [
    ['node24', 'node_modules/node/bin/node'],
    ['openclaw', 'node_modules/openclaw/openclaw.mjs'],
    ['codex', 'node_modules/@openai/codex/bin/codex.js'],
  ]) {
    if (!existsSync(join(repo, 'apps/runtime', dir, file))) throw new Error(`apps/runtime/${dir} is not installed (${file} missing): run npm ci first.`);
  }
  const toolchain = ['node24', 'openclaw', 'codex'].map((dir) => `apps/runtime/${dir}`);
  const sources = [
    'apps/runtime/src',
    'apps/runtime/docker',
    'apps/runtime/package.json',
    ...RUNTIME_WORKSPACES.flatMap((name) => [`packages/${name}/src`, `packages/${name}/package.json`]),
  ];
  return [
    ...toolchain.map((path) => [join(repo, path), 'toolchain', path]),
    [npmPackageDir(), 'toolchain', 'npm'],
    ...[...sources, ...runtimeDependencyClosure()].map((path) => [join(repo, path), 'app', path]),
  ];
}

function walk(path, visit) {
  const stat = lstatSync(path);
  visit(path, stat);
  if (stat.isDirectory()) for (const entry of readdirSync(path).sort()) walk(join(path, entry), visit);
}

function inputsHash(inputs, baseId) {
  const hash = createHash('sha256')
    .update(`base ${baseId}\n`)
    .update(readFileSync(join(repo, 'apps/runtime/Dockerfile')));
  for (const [source, layer, target] of inputs) {
    walk(source, (path, stat) => {
      // COPY keeps modes: a file others could write would be writable in the image.
      if (!stat.isSymbolicLink() && (stat.mode & 0o022) !== 0) throw new Error(`${path} is writable by group or others; it would be in the image too.`);
      hash.update(`${layer}/${target}${path.slice(source.length)}\t${stat.isDirectory() ? 'd' : stat.size}\t${Math.trunc(stat.mtimeMs)}\n`);
    });
  }
  return hash.digest('hex');
}

/** Hard links where possible (same file system), copies otherwise; links stay links. */
function stage(source, target) {
  const stat = lstatSync(source);
  mkdirSync(dirname(target), { recursive: true });
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
  else if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source)) stage(join(source, entry), join(target, entry));
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

/**
 * Builds the runtime image unless `tag` already carries the hash of the same inputs.
 * `quiet` keeps docker's build output unless the build fails; `noCache` rebuilds every layer.
 */
export function buildRuntimeImage({ base = DEFAULT_BASE, tag = defaultRuntimeImageTag(), quiet = false, noCache = false } = {}) {
  const started = Date.now();
  const baseId = imageInspect(base, '{{.Id}}');
  if (baseId === null) throw new Error(`The base image ${base} is not on this Docker engine (nothing is pulled here; make or load it first).`);
  const inputs = stagedInputs();
  const hash = inputsHash(inputs, baseId);
  if (!noCache && imageInspect(tag, `{{ index .Config.Labels "${INPUTS_LABEL}" }}`) === hash) return { tag, built: false, hash, ms: Date.now() - started };
  const previous = imageInspect(tag, '{{.Id}}');

  const context = mkdtempSync(join(tmpdir(), 'occ-runtime-image-'));
  try {
    for (const [source, layer, target] of inputs) stage(source, join(context, layer, target));
    // npm on PATH beside the pinned node (the image's PATH starts with this bin directory).
    const bin = join(context, 'toolchain/apps/runtime/node24/node_modules/.bin');
    symlinkSync('../../../../../npm/bin/npm-cli.js', join(bin, 'npm'));
    symlinkSync('../../../../../npm/bin/npx-cli.js', join(bin, 'npx'));
    // The workspace links npm makes at the root, so `@occ/contracts` resolves as in the repository.
    mkdirSync(join(context, 'app/node_modules/@occ'), { recursive: true });
    for (const name of RUNTIME_WORKSPACES) symlinkSync(`../../packages/${name}`, join(context, 'app/node_modules/@occ', name));
    cpSync(join(repo, 'apps/runtime/Dockerfile'), join(context, 'Dockerfile'));

    const version = readJson(join(repo, 'apps/runtime/package.json')).version ?? 'dev';
    const args = [
      'build',
      ...(noCache ? ['--no-cache'] : []),
      '--network',
      'none',
      '--build-arg',
      `BASE_IMAGE=${base}`,
      '--build-arg',
      `OCC_VERSION=${version}`,
      '--build-arg',
      `OCC_INPUTS_HASH=${hash}`,
      '-t',
      tag,
      context,
    ];
    const result = docker(args, quiet ? {} : { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`docker build of ${tag} failed (exit ${result.status ?? result.signal})${quiet ? `:\n${result.stdout}\n${result.stderr}` : ''}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  // The replaced image would stay behind untagged; removed (ignored while a container uses it).
  if (previous !== null && previous !== imageInspect(tag, '{{.Id}}')) docker(['image', 'rm', previous]);
  return { tag, built: true, hash, ms: Date.now() - started };
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
    console.log(`${result.tag}: ${result.built ? 'built' : 'up to date (same inputs)'} in ${(result.ms / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
