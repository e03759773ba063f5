import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installArgs, parseInstallHelp } from '../src/install-flags.ts';
import { changedPointers } from '../src/revision-config.ts';
import { bearerMatches } from '../src/status-server.ts';
import { inspectionProblems } from '../src/verify-installs.ts';

const dir = mkdtempSync(join(tmpdir(), 'occ-runtime-units-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('install flags', () => {
  it('[N-5][N-6] adds --no-enable only when the pinned CLI lists it', () => {
    const without = parseInstallHelp('Options:\n  --force   Confirm\n  --pin     Record\n  --accept-capabilities  Accept\n  --no-enable-foo  other\n');
    expect(without).toEqual({ noEnable: false, acceptCapabilities: true });
    expect(installArgs('@a/b', '1.2.3', without)).toEqual(['plugins', 'install', '@a/b@1.2.3', '--pin', '--force', '--accept-capabilities']);
    const withFlag = parseInstallHelp('  --pin\n  --no-enable   Install without enabling\n');
    expect(installArgs('x', '1.0.0', withFlag)).toEqual(['plugins', 'install', 'x@1.0.0', '--pin', '--force', '--no-enable']);
  });
});

describe('native inspection checks', () => {
  const installPath = join(dir, 'state', 'npm', 'projects', 'p', 'node_modules', '@s', 'pkg');
  mkdirSync(installPath, { recursive: true });
  writeFileSync(join(installPath, 'index.js'), 'export default {};\n');
  const outside = join(dir, 'elsewhere');
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, join(installPath, 'escape'));
  const row = { selectionKey: '@s/pkg', pluginId: 'pkg-id', package: '@s/pkg', version: '1.0.0', integrity: 'sha512-abc' };
  const good = {
    plugin: { id: 'pkg-id', packageName: '@s/pkg', version: '1.0.0', packageVersion: '1.0.0', rootDir: installPath, source: join(installPath, 'index.js') },
    install: { source: 'npm', installPath, resolvedName: '@s/pkg', resolvedVersion: '1.0.0', integrity: 'sha512-abc' },
  };
  const tweak = (path: 'plugin' | 'install', patch: Record<string, unknown>) => ({ ...good, [path]: { ...good[path], ...patch } });

  it('[N-7] passes a matching install', () => {
    expect(inspectionProblems(row, good)).toEqual([]);
  });

  it('[N-7] names each mismatch: plugin id, package name, version, integrity, install source, containment', () => {
    expect(inspectionProblems(row, tweak('plugin', { id: 'other' }))).toEqual(['plugin id']);
    expect(inspectionProblems(row, tweak('install', { resolvedName: '@s/other' }))).toEqual(['package name']);
    expect(inspectionProblems(row, tweak('plugin', { packageVersion: '1.0.1' }))).toEqual(['version']);
    expect(inspectionProblems(row, tweak('install', { resolvedVersion: '0.9.0' }))).toEqual(['version']);
    expect(inspectionProblems(row, tweak('install', { integrity: 'sha512-xyz' }))).toEqual(['integrity']);
    expect(inspectionProblems(row, tweak('install', { integrity: undefined, npmIntegrity: 'sha512-abc' }))).toEqual([]);
    expect(inspectionProblems(row, tweak('install', { source: 'path' }))).toEqual(['install source']);
    expect(inspectionProblems(row, tweak('plugin', { rootDir: outside, source: join(outside, 'index.js') }))).toEqual(['source containment']);
    // A source reached through a symlink out of the install path is outside, however its path reads.
    expect(inspectionProblems(row, tweak('plugin', { source: join(installPath, 'escape') }))).toEqual(['source containment']);
    expect(inspectionProblems(row, tweak('plugin', { rootDir: undefined }))).toEqual(['source containment']);
    expect(inspectionProblems(row, 'not an object')).toEqual(['plugin id', 'install source', 'package name', 'version', 'integrity', 'source containment']);
  });
});

describe('status token and config diff', () => {
  it('[S-1] accepts exactly the bearer token', () => {
    expect(bearerMatches('Bearer s3cret-token-value', 's3cret-token-value')).toBe(true);
    for (const header of [undefined, '', 'Bearer ', 'bearer s3cret-token-value', 'Bearer s3cret-token-valu', 'Bearer s3cret-token-value x', 'Basic s3cret-token-value']) {
      expect(bearerMatches(header, 's3cret-token-value')).toBe(false);
    }
  });

  it('[N-5] reports what the CLI changed as JSON pointers', () => {
    const before = { plugins: { allow: ['a'], deny: ['b'], entries: { b: { enabled: false } } }, tools: { deny: ['x'] } };
    const after = { plugins: { allow: ['a', 'b'], entries: { b: { enabled: false } } }, tools: { deny: ['x'] }, meta: { lastTouchedVersion: '1' } };
    expect(changedPointers(before, after)).toEqual(['/meta', '/plugins/allow', '/plugins/deny']);
  });
});
