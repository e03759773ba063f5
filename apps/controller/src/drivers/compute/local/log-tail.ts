import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { RuntimeLogs } from '../../../core/ports/compute-driver.ts';
import { lastLines } from '../runtime-contract/log-lines.ts';

export const LOG_READ_BYTES = 256 * 1024;
export const LOG_LINE_BYTES = 4 * 1024;

/**
 * The last `tail` lines of a log file, reading at most its last 256 KiB; each line cut to 4 KiB.
 * `redact` sees each whole line before it is cut, so a secret that straddles the cut is still
 * recognised (and no prefix of it survives). The partial first line of a mid-file read is dropped
 * whole. `truncated` says earlier lines exist that were not returned, or a line was cut.
 */
export function tailLog(path: string, tail: number, redact: (line: string) => string = (line) => line): RuntimeLogs {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], truncated: false };
    throw error;
  }
  let buffer: Buffer;
  let partial: boolean;
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - LOG_READ_BYTES);
    buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    buffer = buffer.subarray(0, read);
    partial = start > 0;
  } finally {
    closeSync(fd);
  }
  let text = buffer;
  // Reading from the middle of the file: the first line is a fragment, dropped.
  if (partial) {
    const newline = text.indexOf(0x0a);
    text = newline === -1 ? Buffer.alloc(0) : text.subarray(newline + 1);
  }
  const last = lastLines(text.toString('utf8'), tail, redact);
  let cut = false;
  const bounded = last.lines.map((line) => {
    if (Buffer.byteLength(line) <= LOG_LINE_BYTES) return line;
    cut = true;
    return Buffer.from(line)
      .subarray(0, LOG_LINE_BYTES)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
  });
  return { lines: bounded, truncated: partial || last.truncated || cut };
}
