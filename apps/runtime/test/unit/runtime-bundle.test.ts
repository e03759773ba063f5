import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runtimeLaunchCommand } from '../../src/launch.ts';
import { bundlePaths, ensureBundle } from '../../src/runtime-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'occ-runtime-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entry = join(dir, 'entry.ts');
// The externals resolve as they do beside the runtime's sources: from this checkout's node_modules.
symlinkSync(fileURLToPath(new URL('../../../../node_modules', import.meta.url)), join(dir, 'node_modules'));
const run = (path: string) => spawnSync(process.execPath, [path], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });

describe('the runtime bundled into one module (runtime-bundle.ts)', () => {
  it('is built beside its entry, kept while no input changed, built again when one did, when the packages left to Node changed or when the bundle itself was changed; externals stay imports', () => {
    writeFileSync(join(dir, 'greeting.ts'), "export const greeting: string = 'one';\n");
    writeFileSync(
      entry,
      "import { greeting } from './greeting.ts';\nimport { WebSocket } from 'ws';\nconsole.log(greeting, typeof WebSocket, new URL('./x.mjs', import.meta.url).pathname);\n",
    );
    const first = ensureBundle(entry, ['ws']);
    expect(first).toEqual({ path: bundlePaths(entry).bundle, built: true });
    expect(dirname(first.path)).toBe(dir);
    const source = readFileSync(first.path, 'utf8');
    expect(source).toMatch(/from ["']ws["']/);
    expect(source).not.toMatch(/from ["']\.\/greeting/);
    expect(source).toMatch(/["']one["']/);
    expect(ensureBundle(entry, ['ws'])).toMatchObject({ built: false });
    // Other packages left to Node: another bundle.
    expect(ensureBundle(entry, ['ws', 'yaml'])).toMatchObject({ built: true });
    expect(ensureBundle(entry, ['ws'])).toMatchObject({ built: true });
    expect(ensureBundle(entry, ['ws'])).toMatchObject({ built: false });

    writeFileSync(join(dir, 'greeting.ts'), "export const greeting: string = 'two';\n");
    expect(ensureBundle(entry, ['ws'])).toMatchObject({ built: true });
    writeFileSync(first.path, `${readFileSync(first.path, 'utf8')}\nconsole.log('planted');\n`);
    expect(ensureBundle(entry, ['ws'])).toMatchObject({ built: true });
    expect(readFileSync(first.path, 'utf8')).not.toContain('planted');
  });

  it('runs as its sources do, with import.meta.url in the entry’s directory (the scripts and toolchain its modules find there)', () => {
    const ran = run(ensureBundle(entry, ['ws']).path);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trim()).toBe(`two function ${join(dir, 'x.mjs')}`);
  });

  it('a broken source is no bundle: the build throws, and what was there stays', () => {
    const before = readFileSync(bundlePaths(entry).bundle, 'utf8');
    writeFileSync(join(dir, 'greeting.ts'), 'export const greeting = ;\n');
    expect(() => ensureBundle(entry, ['ws'])).toThrow();
    expect(readFileSync(bundlePaths(entry).bundle, 'utf8')).toBe(before);
  });

  it('the runtime’s launch command runs the bundle of src/entry.ts, which refuses an empty environment as the sources do', () => {
    const launch = runtimeLaunchCommand();
    const sourceEntry = fileURLToPath(new URL('../../src/entry.ts', import.meta.url));
    expect(launch.args).toEqual([bundlePaths(sourceEntry).bundle]);
    const ran = spawnSync(launch.command, launch.args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(ran.status).toBe(2);
    // The runtime's log is its stderr (log.ts).
    expect(JSON.parse(ran.stderr.trim().split('\n').at(-1)!)).toMatchObject({ source: 'occ-runtime', event: 'startup.unservable', code: 'RUNTIME_ENVIRONMENT_INVALID' });
  });
});
