import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenClawCli } from '../../src/openclaw-cli.ts';
import type { PinnedToolchain } from '../../src/toolchain.ts';

// OpenClaw copies a plugin's package into the temporary directory of every process that loads it
// and leaves the copy behind (≈ 350 MB per command for the Codex harness): each CLI run gets a
// directory of its own under the runtime's TMPDIR, gone when the command has exited.
let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'occ-process-temp-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A CLI whose "OpenClaw" is a script that leaves a file in its TMPDIR and prints where that was. */
function standInCli(base: string): OpenClawCli {
  const entry = join(root, 'stand-in.mjs');
  writeFileSync(
    entry,
    `import { writeFileSync } from 'node:fs'; import { join } from 'node:path';
writeFileSync(join(process.env.TMPDIR, 'plugin-build-copy'), 'x'.repeat(1024));
process.stdout.write(process.env.TMPDIR);
process.exit(Number(process.argv[2] ?? 0));`,
  );
  const toolchain = { nodeBinary: process.execPath, openclawEntry: entry } as PinnedToolchain;
  return new OpenClawCli(toolchain, { TMPDIR: base, PATH: process.env.PATH ?? '' });
}

describe('a temporary directory per OpenClaw process', () => {
  it("gives each command its own directory under the runtime's TMPDIR and removes it, with what OpenClaw left there, once the command exited", async () => {
    const base = join(root, 'runtime-tmp');
    mkdirSync(base);
    const cli = standInCli(base);
    const first = await cli.run(['0'], { timeoutMs: 20_000 });
    const second = await cli.run(['3'], { timeoutMs: 20_000 });
    if (first.kind !== 'exited' || second.kind !== 'exited') throw new Error(`unexpected outcomes ${first.kind} ${second.kind}`);
    expect(second.code).toBe(3);
    for (const used of [first.stdout, second.stdout]) {
      expect(used.startsWith(`${base}/openclaw-`)).toBe(true);
      expect(existsSync(used)).toBe(false);
    }
    expect(first.stdout).not.toBe(second.stdout);
    expect(readdirSync(base)).toEqual([]);
  });
});
