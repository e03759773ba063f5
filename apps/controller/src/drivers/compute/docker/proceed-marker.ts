import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/*
 * The go of a candidate prepared beside the serving container, kept where a restart finds it. The
 * engine restarts a crashed container with the environment it was created with, and a candidate is
 * created to hold (OCC_RUNTIME_HOLD_BEFORE_GATEWAY): without a record of its go it would hold
 * again, with nobody to tell it. The driver writes the go into a host directory of its own, one
 * per container, mounted read-only (the Agent cannot write it); the runtime reads it at each start
 * (OCC_RUNTIME_PROCEED_MARKER). Like the catalog and CA mounts, this needs the engine on OCC's host.
 */

/** The file whose existence is the go. */
export const PROCEED_MARKER = 'go';

/** The container's directory under `root` (<dataDir>/compute/docker/proceed), made empty and readable by the container's user. */
export function freshProceedDir(root: string, containerName: string): string {
  const dir = join(root, containerName);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  rmSync(join(dir, PROCEED_MARKER), { force: true });
  return dir;
}

export function writeProceed(dir: string): void {
  writeFileSync(join(dir, PROCEED_MARKER), '', { mode: 0o644 });
}

export function proceedGiven(dir: string): boolean {
  return existsSync(join(dir, PROCEED_MARKER));
}

/** Removes a container's directory; only one under `root` (the path is read back from the container's binds). */
export function removeProceedDir(root: string, dir: string): void {
  const inside = relative(root, dir);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return;
  rmSync(dir, { recursive: true, force: true });
}
