import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { guardConfig, type ConfigGuard } from '../../src/config-guard.ts';

// The guard over the configuration a serving gateway was started with (config-guard.ts).
describe('guardConfig', () => {
  let dir: string;
  let path: string;
  let guard: ConfigGuard | null;
  let changes: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'occ-config-guard-'));
    path = join(dir, 'openclaw.json');
    writeFileSync(path, '{"tools":{"deny":["exec"]}}');
    changes = 0;
    guard = guardConfig(path, () => (changes += 1));
  });
  afterEach(() => {
    guard?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const changed = () =>
    waitFor(
      'the change to be noticed',
      async () => changes,
      (n) => n > 0,
      5_000,
      5,
    );

  it('an edit in place is noticed, once', async () => {
    writeFileSync(path, '{"tools":{"deny":[]}}');
    await changed();
    writeFileSync(path, '{"tools":{"deny":["x"]}}');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(changes).toBe(1);
  });

  it('a file put in its place by a rename is noticed', async () => {
    writeFileSync(join(dir, 'next.json'), '{"tools":{}}');
    renameSync(join(dir, 'next.json'), path);
    await changed();
  });

  it('a removed file is noticed', async () => {
    unlinkSync(path);
    await changed();
  });

  it('the same bytes written again, or another file of the directory, is no change; after close nothing is', async () => {
    writeFileSync(path, '{"tools":{"deny":["exec"]}}');
    writeFileSync(join(dir, 'endpoint.json'), '{}');
    // Past one poll, too.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(changes).toBe(0);
    guard!.close();
    writeFileSync(path, '{}');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(changes).toBe(0);
  });
});
