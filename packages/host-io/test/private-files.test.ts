import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePrivateFileAtomic } from '../src/private-files.ts';

const root = mkdtempSync(join(tmpdir(), 'occ-private-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writePrivateFileAtomic', () => {
  it('writes the content as a 0600 file and leaves no temporary behind', () => {
    const path = join(root, 'a.json');
    writePrivateFileAtomic(path, '{"a":1}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(root)).toEqual(['a.json']);
  });

  it('replaces an existing file whole, and makes a looser one private', () => {
    const dir = mkdtempSync(join(root, 'replace-'));
    const path = join(dir, 'key');
    writeFileSync(path, 'old content that is longer than the new one');
    chmodSync(path, 0o644);
    writePrivateFileAtomic(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['key']);
  });

  it('is 0600 whatever the umask', () => {
    const previous = process.umask(0o000);
    try {
      const path = join(root, 'umask');
      writePrivateFileAtomic(path, 'x');
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('throws when the file cannot be placed, leaving the old content and no temporary', () => {
    const dir = mkdtempSync(join(root, 'fail-'));
    const target = join(dir, 'target');
    // A directory at the target path: the rename over it fails after the temporary was written.
    mkdirSync(target);
    writeFileSync(join(target, 'inner'), 'x');
    expect(() => writePrivateFileAtomic(target, 'y')).toThrow();
    expect(readdirSync(dir)).toEqual(['target']);
    expect(readFileSync(join(target, 'inner'), 'utf8')).toBe('x');
  });

  it('throws when the directory does not exist', () => {
    expect(() => writePrivateFileAtomic(join(root, 'missing', 'f'), 'x')).toThrow(/ENOENT/);
  });
});
