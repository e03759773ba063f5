import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file readable by this user only (0600), atomically and durably: a reader sees the
 * old content or the new, never a partial file, and after a crash the new content is either
 * wholly there or not at all. A sibling temporary is written and fsynced, renamed over the
 * target, then the directory is fsynced so the rename itself survives a crash.
 *
 * The one home of this rule: the runtime (its endpoint and OpenClaw configuration) and the
 * controller's local ComputeDriver (manifests, pid files, keys) both write through it.
 */
export function writePrivateFileAtomic(path: string, content: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600); // whatever the umask left
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(dirname(path));
}

/** Flushes a directory's entries (a rename) to disk. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A small file's text, or null when it does not exist. */
export function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
