import { closeSync, openSync } from 'node:fs';

/**
 * A directory of Unix sockets named through this process's descriptor of it
 * (`/proc/self/fd/<fd>`): a socket path may not exceed 107 bytes, and a revision directory's path
 * is longer. Both sides of a sandbox's bridge name their sockets this way (Linux only, as the
 * sandbox). The descriptor also pins the directory: a link put in its place later is not followed.
 */
export function socketDirectory(dir: string): { path: string; close(): void } {
  const fd = openSync(dir, 'r');
  return { path: `/proc/self/fd/${fd}`, close: () => closeSync(fd) };
}
