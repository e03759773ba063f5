// Installs the pinned agent-runtime toolchain: first Node 24 (node24/, the npm package `node`,
// which ships the binary), then OpenClaw (openclaw/) with that Node first on PATH, because
// OpenClaw's install scripts refuse the Node 20 that runs npm here, then the Codex app-server
// (codex/, `@openai/codex` with its platform binary as an npm package). All come from committed
// lockfiles, outside the workspace tree, so the controller and tests keep the machine's Node.
// Idempotent: a directory whose installed version already matches its pin is skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

function pinnedVersion(dir, pkg) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies[pkg];
}

function npmCi(dir, extraPath) {
  const npmCli = process.env.npm_execpath;
  const command = npmCli ? process.execPath : 'npm';
  const args = [...(npmCli ? [npmCli] : []), 'ci', '--no-audit', '--no-fund', '--loglevel=error'];
  const env = { ...process.env, npm_config_workspaces: 'false' };
  if (extraPath) env.PATH = `${extraPath}:${process.env.PATH ?? ''}`;
  const result = spawnSync(command, args, { cwd: dir, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error(`npm ci in ${dir} failed (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
}

for (const [dir, pkg, extraPath] of [
  [toolchain.nodeDir, 'node', undefined],
  [toolchain.openclawDir, 'openclaw', toolchain.nodeBinDir],
  [toolchain.codexDir, '@openai/codex', toolchain.nodeBinDir],
]) {
  if (installedVersion(dir, pkg) !== pinnedVersion(dir, pkg)) npmCi(dir, extraPath);
}
