import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface RegularFile {
  bytes: Buffer;
  /** How many names the file has (more than one: it can be written through another). */
  links: number;
}

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`; null when it is missing,
 * larger, or anything else. A last-component symbolic link is never followed and a FIFO never
 * blocks the reader (the path may be in a directory an untrusted Agent writes).
 */
export function readRegularFile(path: string, maxBytes: number): RegularFile | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return null;
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: bytes.subarray(0, read), links: stat.nlink };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
