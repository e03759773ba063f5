import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureHarnessPlugin } from '../../src/codex/harness-plugin.ts';
import type { ReadCommand } from '../../src/openclaw-batch.ts';
import type { CliOutcome } from '../../src/openclaw-cli.ts';
import type { OpenClawCommands } from '../../src/openclaw-commands.ts';

const SPEC = '@openclaw/codex@2026.9.5';
let dir: string;
let stateDir: string;
let pin: { spec: string; integrity: string; npmCache: string; registry: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'occ-harness-'));
  stateDir = join(dir, 'state');
  mkdirSync(stateDir);
  pin = { spec: SPEC, integrity: 'sha512-pinned', npmCache: join(dir, 'npm-cache'), registry: 'https://registry.npmjs.org/' };
  mkdirSync(join(pin.npmCache, '_cacache'), { recursive: true });
  writeFileSync(join(pin.npmCache, '_cacache', 'entry'), 'cached');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const exited = (stdout: string, code = 0): CliOutcome => ({ kind: 'exited', code, stdout, stderr: '' });
// `plugins inspect codex --json` as OpenClaw prints it: the install record beside the plugin.
const inspected = (install: Record<string, unknown> | undefined) => exited(JSON.stringify({ plugin: { id: 'codex', status: 'loaded' }, ...(install ? { install } : {}) }));
const npmRecord = { source: 'npm', spec: SPEC, resolvedSpec: SPEC, integrity: 'sha512-pinned', version: '2026.9.5' };

/** The two commands the harness install uses: answers for `inspect` in order, one install outcome. */
function commands(inspects: CliOutcome[], install: CliOutcome = exited('Installed plugin: codex')) {
  const calls: string[] = [];
  const fake = {
    // The harness inspection runs as a one-command batch (openclaw-batch.mjs).
    readInOneProcess: async (reads: ReadCommand[]) =>
      reads.map((read) => {
        calls.push(`inspect ${read.command === 'inspect' ? read.pluginId : read.command}`);
        return { outcome: inspects.shift() ?? exited('', 1), ms: 0 };
      }),
    installHarnessPlugin: async (spec: string, cache: { npmCache: string; registry: string }) => {
      // What npm would read: a copy of the set-up cache, present while the install runs.
      calls.push(`install ${spec} from ${cache.npmCache.replace(dir, '<dir>')} (${readdirSync(join(cache.npmCache, '_cacache')).join()}) as ${cache.registry}`);
      return install;
    },
  } as unknown as OpenClawCommands;
  return { fake, calls };
}

describe("the Codex harness plugin in the Agent's state", () => {
  it("[X-1] installed from the set-up npm cache as an npm install of the pinned spec, then verified against the lockfile's integrity; a new Agent's state (no npm root) is not inspected first", async () => {
    const { fake, calls } = commands([inspected(npmRecord)]);
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).resolves.toBe('installed');
    // npm refuses a read-only cache: it reads a copy in the Agent's state, gone afterwards.
    expect(calls).toEqual(['install npm:@openclaw/codex@2026.9.5 from <dir>/state/.occ-harness-npm-cache (entry) as https://registry.npmjs.org/', 'inspect codex']);
    expect(readdirSync(stateDir)).toEqual([]);
    expect(existsSync(join(pin.npmCache, '_cacache', 'entry'))).toBe(true);
  });

  it('[X-1] a state with npm installs but no harness record is inspected, then installed', async () => {
    mkdirSync(join(stateDir, 'npm'));
    const { fake, calls } = commands([exited('', 1), inspected(npmRecord)]);
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).resolves.toBe('installed');
    expect(calls.map((call) => call.split(' ')[0])).toEqual(['inspect', 'install', 'inspect']);
  });

  it("[X-1] kept across revisions while the Agent's state holds exactly the pinned npm install", async () => {
    mkdirSync(join(stateDir, 'npm'));
    const { fake, calls } = commands([inspected(npmRecord)]);
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).resolves.toBe('kept');
    expect(calls).toEqual(['inspect codex']);
  });

  it.each([
    ['a linked copy (no install record)', undefined],
    ['another version', { ...npmRecord, resolvedSpec: '@openclaw/codex@2026.9.4' }],
    ['another integrity', { ...npmRecord, integrity: 'sha512-other' }],
    ['a path install', { ...npmRecord, source: 'path' }],
  ])('[X-1] %s is installed again', async (_what, install) => {
    mkdirSync(join(stateDir, 'npm'));
    const { fake, calls } = commands([inspected(install), inspected(npmRecord)]);
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).resolves.toBe('installed');
    expect(calls[1]).toMatch(/^install /);
  });

  it('[W-2] an install that fails (an incomplete cache) fails the startup with PLUGIN_INSTALL_ERROR naming the plugin', async () => {
    const { fake } = commands([], exited('', 1));
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'PLUGIN_INSTALL_ERROR',
      message: expect.stringContaining('@openclaw/codex@2026.9.5'),
    });
  });

  it('[N-5] an install whose record is not the pin fails the startup with PLUGIN_VERIFICATION_FAILED', async () => {
    const { fake } = commands([inspected({ ...npmRecord, integrity: 'sha512-tampered' })]);
    await expect(ensureHarnessPlugin(fake, pin, stateDir, { timeoutMs: 1000 })).rejects.toMatchObject({ code: 'PLUGIN_VERIFICATION_FAILED' });
  });
});
