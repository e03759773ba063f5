import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How often the file is compared as well (a change notice can be missed: a full inotify queue, a file system without one). */
const POLL_MS = 1000;

export interface ConfigGuard {
  close(): void;
}

/**
 * Calls `onChange` once when the revision's configuration stops being the bytes the gateway
 * started with (rewritten, replaced, removed). The Agent's tools run as the runtime's user and
 * can write that file, and OpenClaw's gateway applies an edit to it while it serves (config hot
 * reload: tool policy and plugins): an Agent could lift its own denies. The gateway reloads only
 * once the write has settled and a debounce has passed (about half a second), so ending it on
 * the change notice comes first (docs/security.md, "Governance an Agent cannot rewrite").
 */
export function guardConfig(path: string, onChange: () => void): ConfigGuard {
  const started = readOrNull(path);
  let closed = false;
  let watcher: FSWatcher | null = null;
  const timer = setInterval(check, POLL_MS);
  timer.unref();
  try {
    // The directory, not the file: a file replaced by a rename is a new inode a watch on the old one never hears of.
    watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
      if (name === null || name === basename(path)) check();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = null; // the poll still compares
  }

  function check(): void {
    if (closed) return;
    const now = readOrNull(path);
    if (now === null ? started === null : started !== null && now.equals(started)) return;
    close();
    onChange();
  }

  function close(): void {
    closed = true;
    clearInterval(timer);
    watcher?.close();
  }

  return { close };
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}
