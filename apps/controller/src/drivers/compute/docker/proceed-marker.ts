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

/**
 * The go directories under one root (<dataDir>/compute/docker/proceed). A directory is read back
 * from a container's binds: one outside the root is never written or removed, only read.
 */
export class ProceedMarkers {
  constructor(private readonly root: string) {}

  /** The container's directory, made empty and readable by the container's user. */
  fresh(containerName: string): string {
    const dir = join(this.root, containerName);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    rmSync(join(dir, PROCEED_MARKER), { force: true });
    return dir;
  }

  given(dir: string): boolean {
    return existsSync(join(dir, PROCEED_MARKER));
  }

  /** Records the go; false when it could not be (a directory outside the root, or gone). */
  give(dir: string): boolean {
    if (!this.owns(dir)) return false;
    try {
      writeFileSync(join(dir, PROCEED_MARKER), '', { mode: 0o644 });
      return true;
    } catch {
      return false;
    }
  }

  /** Takes a recorded go back (its container is stopped, to hold again at its next start); false when a go stays recorded. */
  clear(dir: string): boolean {
    if (this.owns(dir)) rmSync(join(dir, PROCEED_MARKER), { force: true });
    return !this.given(dir);
  }

  /** Removes a removed container's directory; never throws (a directory the engine made as root may refuse). */
  remove(dir: string): void {
    if (!this.owns(dir)) return;
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Left behind: a few bytes, and `fresh` empties it if the name comes back.
    }
  }

  private owns(dir: string): boolean {
    const inside = relative(this.root, dir);
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
  }
}
