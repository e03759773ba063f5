import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { readRegularFile } from '@occ/host-io/regular-file';
import { logEvent } from './log.ts';

/**
 * How often the file is compared besides the change notices: well inside the half second
 * OpenClaw waits before it reloads, so a notice that never comes (a watch that failed, a file
 * system without one) still loses no race. Reading a few kilobytes ten times a second costs nothing.
 */
const POLL_MS = 100;
/** Far above any configuration the runtime writes; a larger file is a change. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

export interface ConfigGuard {
  close(): void;
}

export interface ConfigGuardOptions {
  /** Tests set it long to show the change notices alone are fast. */
  pollMs?: number;
  /** false: the comparison only, as on a file system that gives no change notices (tests). */
  watch?: boolean;
  /** The bytes the runtime wrote and verified; the file is compared with them from the start. Default: the file as it is now. */
  expected?: Buffer | null;
}

/**
 * Calls `onChange` once when the revision's configuration stops being the bytes the gateway
 * started with (rewritten, replaced, removed), or when it is not one regular file with one name
 * (a hard link or a symbolic link is a way to write it that a watch on its directory would not
 * name). The Agent's tools run as the runtime's user and can write that file, and OpenClaw's
 * gateway applies an edit to it while it serves (config hot reload: tool policy and plugins): an
 * Agent could lift its own denies. The gateway reloads only once a write has settled and a
 * debounce has passed (about half a second), so ending it on the change notice comes first
 * (docs/security.md, "Governance an Agent cannot rewrite while it serves").
 */
export function guardConfig(path: string, onChange: () => void, options: ConfigGuardOptions = {}): ConfigGuard {
  const started = options.expected ?? readTrusted(path);
  let closed = false;
  const watchers: FSWatcher[] = [];
  const timer = setInterval(check, options.pollMs ?? POLL_MS);
  timer.unref();
  // The directory hears a replacement or removal; the file itself (its inode) a write under any name.
  for (const target of options.watch === false ? [] : [dirname(path), path]) {
    try {
      const watcher = watch(target, { persistent: false }, check);
      watcher.on('error', () => {
        logEvent('gateway.config_guard.degraded', { reason: 'watch-error' });
        watcher.close();
      });
      watchers.push(watcher);
    } catch {
      logEvent('gateway.config_guard.degraded', { reason: 'watch-unavailable' });
    }
  }
  // A file that is already not what the runtime can vouch for (changed since it was written, not a plain file).
  setImmediate(check);

  function check(): void {
    if (closed) return;
    const now = readTrusted(path);
    if (started !== null && now?.equals(started)) return;
    close();
    onChange();
  }

  function close(): void {
    closed = true;
    clearInterval(timer);
    for (const watcher of watchers) watcher.close();
  }

  return { close };
}

/** The file's bytes when it is one regular file with one name (never through a symbolic link, never a FIFO); null otherwise. */
function readTrusted(path: string): Buffer | null {
  const file = readRegularFile(path, MAX_CONFIG_BYTES);
  return file !== null && file.links === 1 ? file.bytes : null;
}
