// Installs the pinned agent-runtime toolchain: first Node 24 (node24/, the npm package `node`,
// which ships the binary), then OpenClaw (openclaw/) with that Node first on PATH, because
// OpenClaw's install scripts refuse the machine's Node (20 may run `npm ci`), then the Codex
// app-server (codex/, `@openai/codex` with its platform binary as an npm package, and the official
// OpenClaw Codex harness plugin `@openclaw/codex`, which depends on that same @openai/codex). All
// come from committed lockfiles, outside the workspace tree (each its own npm install). The same
// Node 24 then runs OCC itself: the root postinstall, after this one, links it as
// node_modules/.bin/node (scripts/link-pinned-node.mjs at the repository root). Idempotent: a
// directory whose installed packages all match their pins is skipped.
// Last, the npm cache Codex Agents install their harness plugin from (below).
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// The same layout as src/toolchain.ts (plain Node runs this script, so it cannot import TypeScript).
const runtimeDir = dirname(dirname(fileURLToPath(import.meta.url)));
const toolchain = {
  nodeDir: join(runtimeDir, 'node24'),
  nodeBinDir: join(runtimeDir, 'node24', 'node_modules', '.bin'),
  openclawDir: join(runtimeDir, 'openclaw'),
  codexDir: join(runtimeDir, 'codex'),
};

function installedVersion(dir, pkg) {
  const manifest = join(dir, 'node_modules', pkg, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

/** Every direct dependency of the directory's package.json, with its exact pinned version. */
function pins(dir) {
  return Object.entries(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies);
}

/** Runs npm in `dir` (output shown, or returned trimmed with `capture`); a failure ends set-up. */
function npm(dir, npmArgs, extraPath, { capture = false } = {}) {
  const npmCli = process.env.npm_execpath;
  const command = npmCli ? process.execPath : 'npm';
  const args = [...(npmCli ? [npmCli] : []), ...npmArgs, ...(capture ? [] : ['--no-audit', '--no-fund', '--loglevel=error'])];
  const env = { ...process.env, npm_config_workspaces: 'false' };
  if (extraPath) env.PATH = `${extraPath}:${process.env.PATH ?? ''}`;
  const result = spawnSync(command, args, { cwd: dir, stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', env });
  if (result.status !== 0) {
    console.error(`npm ${npmArgs[0]} in ${dir} failed (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
  return capture ? result.stdout.trim() : '';
}

const npmCi = (dir, extraPath) => npm(dir, ['ci'], extraPath);

for (const [dir, extraPath] of [
  [toolchain.nodeDir, undefined],
  [toolchain.openclawDir, toolchain.nodeBinDir],
  [toolchain.codexDir, toolchain.nodeBinDir],
]) {
  if (pins(dir).some(([pkg, version]) => installedVersion(dir, pkg) !== version)) npmCi(dir, extraPath);
}

// `plugins install --help` of the pinned CLI, kept beside it: which optional install flags this
// release has is a fact of the toolchain, read once here instead of in a CLI process per prepare
// (src/install-flags.ts parses it; without the file the runtime asks the CLI itself).
const openclawVersion = installedVersion(toolchain.openclawDir, 'openclaw');
const installHelp = join(toolchain.openclawDir, `.occ-install-help-${openclawVersion}.txt`);
if (!existsSync(installHelp)) {
  const scratch = mkdtempSync(join(tmpdir(), 'occ-openclaw-help-'));
  try {
    const help = spawnSync(
      join(toolchain.nodeDir, 'node_modules', 'node', 'bin', 'node'),
      [join(toolchain.openclawDir, 'node_modules', 'openclaw', 'openclaw.mjs'), 'plugins', 'install', '--help'],
      {
        encoding: 'utf8',
        env: {
          PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`,
          HOME: scratch,
          OPENCLAW_STATE_DIR: join(scratch, 'state'),
          OPENCLAW_CONFIG_PATH: join(scratch, 'openclaw.json'),
          TMPDIR: scratch,
        },
      },
    );
    // Only a help that describes the command is kept; otherwise the runtime asks at each prepare.
    if (help.status === 0 && /--pin\b/.test(help.stdout)) writeFileSync(installHelp, help.stdout, { mode: 0o644 });
    else console.error(`openclaw plugins install --help failed (exit ${help.status ?? help.signal}); the runtime will ask it at each prepare.`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// @openclaw/codex imports `openclaw/plugin-sdk/*` (an optional peer dependency). For a plugin it
// installs from npm, OpenClaw links its own package into the plugin's node_modules; a plugin
// loaded from a local path (plugins.load.paths) is left alone, and without this link the plugin's
// natively imported modules (state migrations, workers) fail with ERR_MODULE_NOT_FOUND. So the
// same link, relative, to the pinned OpenClaw: `npm ci` above removes it, and this restores it.
const codexPluginDir = join(toolchain.codexDir, 'node_modules', '@openclaw', 'codex');
const peerLink = join(codexPluginDir, 'node_modules', 'openclaw');
const peerTarget = relative(dirname(peerLink), join(toolchain.openclawDir, 'node_modules', 'openclaw'));
const currentTarget = (() => {
  try {
    return lstatSync(peerLink).isSymbolicLink() ? readlinkSync(peerLink) : null;
  } catch {
    return undefined;
  }
})();
if (currentTarget !== peerTarget) {
  if (currentTarget !== undefined) rmSync(peerLink, { recursive: true, force: true });
  mkdirSync(dirname(peerLink), { recursive: true });
  symlinkSync(peerTarget, peerLink, 'dir');
}

// Each Codex Agent's OpenClaw installs @openclaw/codex into the Agent's own state from npm
// (OpenClaw trusts only npm installs with the keyed stores a Codex turn needs), offline from this
// cache (src/codex/harness-plugin.ts): filled once per pinned version by installing the pinned spec,
// as OpenClaw will, into a throwaway directory. Packages and their metadata stay in the cache.
const harnessVersion = Object.fromEntries(pins(toolchain.codexDir))['@openclaw/codex'];
const harnessCache = join(toolchain.codexDir, 'npm-cache');
// npm keys its cache by URL: the marker names the registry it was filled from, which the runtime's
// offline install must name too (src/toolchain.ts reads it).
const filled = join(harnessCache, `.occ-filled-${harnessVersion}`);
if (!existsSync(filled)) {
  rmSync(harnessCache, { recursive: true, force: true });
  const scratch = mkdtempSync(join(tmpdir(), 'occ-codex-harness-'));
  try {
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true }));
    npm(scratch, ['install', '--cache', harnessCache, '--ignore-scripts', '--no-save', `@openclaw/codex@${harnessVersion}`], toolchain.nodeBinDir);
    writeFileSync(filled, `${JSON.stringify({ registry: npm(scratch, ['config', 'get', 'registry'], toolchain.nodeBinDir, { capture: true }) })}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
