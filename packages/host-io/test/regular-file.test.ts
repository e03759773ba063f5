import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile } from '../src/regular-file.ts';

describe('readRegularFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'occ-regular-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a regular file: its bytes and how many names it has', () => {
    writeFileSync(join(dir, 'a'), 'hello');
    expect(readRegularFile(join(dir, 'a'), 100)).toEqual({ bytes: Buffer.from('hello'), links: 1 });
    linkSync(join(dir, 'a'), join(dir, 'b'));
    expect(readRegularFile(join(dir, 'a'), 100)?.links).toBe(2);
  });

  it('null for a missing file, a larger one, a directory, a symbolic link (never followed) and a FIFO (never waited on)', () => {
    writeFileSync(join(dir, 'a'), 'hello');
    symlinkSync(join(dir, 'a'), join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(readRegularFile(join(dir, 'missing'), 100)).toBeNull();
    expect(readRegularFile(join(dir, 'a'), 4)).toBeNull();
    expect(readRegularFile(dir, 100)).toBeNull();
    expect(readRegularFile(join(dir, 'link'), 100)).toBeNull();
    expect(readRegularFile(join(dir, 'fifo'), 100)).toBeNull();
  });
});
