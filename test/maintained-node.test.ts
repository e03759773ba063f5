import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pinnedToolchain } from '@occ/runtime/toolchain';
import { minVersion, satisfies } from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * OCC runs on a maintained Node LTS: the Node 24 the agent runtime pins (apps/runtime/node24),
 * which `npm ci` links as node_modules/.bin/node (scripts/link-pinned-node.mjs) so npm scripts and
 * `npx` find it first on PATH, whatever Node the machine has.
 */
const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const toolchain = pinnedToolchain();
const PINNED = (JSON.parse(readFileSync(join(toolchain.nodeDir, 'package.json'), 'utf8')) as { dependencies: { node: string } }).dependencies.node;
const major = (version: string) => version.replace(/^v/, '').split('.')[0];

interface Probe {
  version: string;
  execPath: string;
  ppid: number;
  argv: string[];
}

describe('the maintained Node LTS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-node-probe-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the tests, and every process they spawn with process.execPath, run on the pinned Node', () => {
    const hint = `vitest runs on Node ${process.version}, not the pinned ${PINNED}: start it through npm (npm test, npx vitest) after npm ci`;
    expect(major(process.versions.node), hint).toBe(major(PINNED));
    expect(realpathSync(process.execPath)).toBe(realpathSync(toolchain.nodeBinary));
  });

  it("`npm start` runs OCC on it, as npm's own child (so npm's SIGINT and SIGTERM reach it)", async () => {
    // Loaded by every Node that starts with this NODE_OPTIONS: npm's own Node passes through; the
    // process the start script runs reports what it is and exits before OCC starts.
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `if (process.env.npm_lifecycle_event === 'start') {
  console.log('occ-start-probe ' + JSON.stringify({ version: process.version, execPath: process.execPath, ppid: process.ppid, argv: process.argv.slice(1) }));
  process.exit(0);
}
`,
    );
    const { npm_lifecycle_event: _event, ...env } = process.env;
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: REPOSITORY,
      env: { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(probe).href}`.trim() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const code = await new Promise((resolve) => npm.once('exit', resolve));
    const line = output.split('\n').find((text) => text.startsWith('occ-start-probe '));
    expect(line, `npm start printed no probe line (exit ${String(code)}):\n${output}`).toBeDefined();
    const started = JSON.parse(line!.slice('occ-start-probe '.length)) as Probe;
    expect(started.version).toBe(`v${PINNED}`);
    expect(realpathSync(started.execPath)).toBe(realpathSync(toolchain.nodeBinary));
    expect(started.argv).toEqual([join(REPOSITORY, 'apps', 'cli', 'bin', 'occ.mjs'), 'up']);
    expect(started.ppid).toBe(npm.pid);
    expect(code).toBe(0);
  });

  it('`npm ci` on the oldest Node that may run npm (devEngines) finds every locked package’s engines satisfied: no EBADENGINE warning', () => {
    const manifest = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { devEngines: { runtime: { version: string } } };
    const oldest = minVersion(manifest.devEngines.runtime.version)!.version;
    const lock = JSON.parse(readFileSync(join(REPOSITORY, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } }> };
    // The root ('') names the Node OCC runs on; npm does not hold it against the Node running npm.
    const refused = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.engines?.node !== undefined && !satisfies(oldest, entry.engines.node))
      .map(([path, entry]) => `${path}@${entry.version} needs Node ${entry.engines!.node}`);
    expect(refused, `on Node ${oldest}`).toEqual([]);
  });
});
