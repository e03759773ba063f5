import { chmodSync, existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RemovedResource } from '../../../core/ports/compute-driver.ts';

/**
 * A deleted Agent's directory under the driver's root (`agents/<agentId>`: its OpenClaw state,
 * home, temporary files and every revision's manifest and log), removed once its runtimes are
 * stopped. What a plugin or npm left read-only is made writable first, so nothing of it stays.
 * Idempotent: a directory already gone answers [].
 */
export function removeAgentFiles(root: string, dir: string): RemovedResource[] {
  if (!existsSync(dir)) return [];
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    makeWritable(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  }
  return [{ kind: 'directory', name: relative(root, dir) }];
}

/** Every directory under `dir` (never following a symbolic link) owner-writable and searchable. */
function makeWritable(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !lstatSync(join(dir, entry.name)).isSymbolicLink()) makeWritable(join(dir, entry.name));
  }
}
