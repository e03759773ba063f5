import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropUnusedPlatformBinaries } from '../../src/codex/harness-binaries.ts';

let dir: string;
let stateDir: string;
let modules: string;
/** The harness install as OpenClaw lays it out in the Agent's state, with the platform binary npm added. */
function harnessInstall(root: string, optionalDependencies: Record<string, string>): string {
  const projectModules = join(root, 'npm', 'projects', 'openclaw-codex-1a2b', 'node_modules');
  mkdirSync(join(projectModules, '@openclaw', 'codex'), { recursive: true });
  mkdirSync(join(projectModules, '@openai', 'codex', 'bin'), { recursive: true });
  writeFileSync(join(projectModules, '@openai', 'codex', 'package.json'), JSON.stringify({ name: '@openai/codex', optionalDependencies }));
  writeFileSync(join(projectModules, '@openai', 'codex', 'bin', 'codex.js'), '');
  mkdirSync(join(projectModules, '@openai', 'codex-linux-x64', 'vendor'), { recursive: true });
  writeFileSync(join(projectModules, '@openai', 'codex-linux-x64', 'vendor', 'codex'), 'binary');
  return projectModules;
}
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'occ-harness-bin-'));
  stateDir = join(dir, 'state');
  modules = harnessInstall(stateDir, { '@openai/codex-linux-x64': 'npm:@openai/codex@0.154.0-linux-x64', '@openai/codex-darwin-arm64': 'npm:@openai/codex@0.154.0-darwin-arm64' });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the Codex binary in the Agent's harness install", () => {
  it('the platform packages @openai/codex lists are removed; the harness and its JavaScript stay', () => {
    expect(dropUnusedPlatformBinaries(join(modules, '@openclaw', 'codex'), stateDir)).toEqual(['@openai/codex-linux-x64']);
    expect(existsSync(join(modules, '@openai', 'codex-linux-x64'))).toBe(false);
    expect(existsSync(join(modules, '@openai', 'codex', 'bin', 'codex.js'))).toBe(true);
    expect(existsSync(join(modules, '@openclaw', 'codex'))).toBe(true);
    // Idempotent: a kept install that was already dropped.
    expect(dropUnusedPlatformBinaries(join(modules, '@openclaw', 'codex'), stateDir)).toEqual([]);
  });

  it('an install path outside the Agent’s state is never touched', () => {
    const elsewhere = harnessInstall(join(dir, 'elsewhere'), { '@openai/codex-linux-x64': 'x' });
    expect(dropUnusedPlatformBinaries(join(elsewhere, '@openclaw', 'codex'), stateDir)).toEqual([]);
    expect(existsSync(join(elsewhere, '@openai', 'codex-linux-x64', 'vendor', 'codex'))).toBe(true);
    expect(dropUnusedPlatformBinaries(join(stateDir, '..', 'elsewhere', 'x', 'y'), stateDir)).toEqual([]);
  });

  it('a name in the manifest that is not one @openai/codex-* package is skipped (no path walks out)', () => {
    mkdirSync(join(dir, 'victim'));
    writeFileSync(
      join(modules, '@openai', 'codex', 'package.json'),
      JSON.stringify({ optionalDependencies: { '@openai/../../../../../victim': 'x', 'left-pad': 'x', '@openai/codex-linux-x64': 'x' } }),
    );
    expect(dropUnusedPlatformBinaries(join(modules, '@openclaw', 'codex'), stateDir)).toEqual(['@openai/codex-linux-x64']);
    expect(existsSync(join(dir, 'victim'))).toBe(true);
  });

  it('no @openai/codex manifest (another harness layout): nothing is removed', () => {
    rmSync(join(modules, '@openai', 'codex'), { recursive: true });
    expect(dropUnusedPlatformBinaries(join(modules, '@openclaw', 'codex'), stateDir)).toEqual([]);
    expect(existsSync(join(modules, '@openai', 'codex-linux-x64'))).toBe(true);
  });
});
