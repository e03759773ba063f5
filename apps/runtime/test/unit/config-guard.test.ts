import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { guardConfig, type ConfigGuard, type ConfigGuardOptions } from '../../src/config-guard.ts';

// The guard over the configuration a serving gateway was started with (config-guard.ts). OpenClaw
// reloads an edit about half a second after it: every change here must be noticed well before
// that from the change notices alone (the comparison every 100 ms is off: pollMs 60 s).
const CONFIG = '{"tools":{"deny":["exec"]}}';
const NOTICED_MS = 250;

describe('guardConfig', () => {
  let dir: string;
  let path: string;
  let guard: ConfigGuard | null;
  let changes: number;
  const arm = (options: ConfigGuardOptions = { pollMs: 60_000 }) => {
    guard?.close();
    changes = 0;
    guard = guardConfig(path, () => (changes += 1), options);
  };
  beforeEach(() => {
    guard = null;
    dir = mkdtempSync(join(tmpdir(), 'occ-config-guard-'));
    path = join(dir, 'openclaw.json');
    writeFileSync(path, CONFIG);
    arm();
  });
  afterEach(() => {
    guard?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const noticed = () =>
    waitFor(
      'the change to be noticed',
      async () => changes,
      (n) => n > 0,
      NOTICED_MS,
      5,
    );
  const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('an edit in place is noticed at once, and only once', async () => {
    writeFileSync(path, '{"tools":{"deny":[]}}');
    await noticed();
    writeFileSync(path, '{"tools":{"deny":["x"]}}');
    await quietFor(300);
    expect(changes).toBe(1);
  });

  it('a file put in its place by a rename is noticed', async () => {
    writeFileSync(join(dir, 'next.json'), '{"tools":{}}');
    renameSync(join(dir, 'next.json'), path);
    await noticed();
  });

  it('a removed file is noticed', async () => {
    unlinkSync(path);
    await noticed();
  });

  it('a second name for the file (a hard link elsewhere, to write through) is noticed when it is made', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'occ-config-guard-link-'));
    try {
      linkSync(path, join(elsewhere, 'alias'));
      await noticed();
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('a symbolic link put in its place is noticed, even to the same bytes', async () => {
    writeFileSync(join(dir, 'same.json'), CONFIG);
    symlinkSync(join(dir, 'same.json'), join(dir, 'link'));
    renameSync(join(dir, 'link'), path);
    await noticed();
  });

  it('a FIFO put in its place is noticed, and does not stop the runtime waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    renameSync(join(dir, 'fifo'), path);
    await noticed();
  });

  it('a configuration that is not one plain file when the gateway starts is a change at once', async () => {
    guard!.close();
    guard = null;
    linkSync(path, join(dir, 'alias'));
    arm();
    await noticed();
  });

  it('held to the bytes the runtime wrote: a file changed before the guard was armed is a change at once', async () => {
    arm({ pollMs: 60_000, expected: Buffer.from('{"tools":{"deny":["exec","write"]}}') });
    await noticed();
  });

  it('without change notices (a file system that gives none), the comparison every 100 ms notices an edit', async () => {
    arm({ watch: false });
    writeFileSync(path, '{}');
    await noticed();
  });

  it('the same bytes written again, or another file of the directory, is no change; after close nothing is', async () => {
    arm({ pollMs: 50 });
    writeFileSync(path, CONFIG);
    writeFileSync(join(dir, 'endpoint.json'), '{}');
    await quietFor(300);
    expect(changes).toBe(0);
    guard!.close();
    writeFileSync(path, '{}');
    await quietFor(300);
    expect(changes).toBe(0);
  });
});
