/**
 * A container's log as the Engine API returns it without a TTY: frames of an 8-byte header
 * (stream, 3 zero bytes, big-endian length) and a payload. Returns the text of both streams in
 * order; a truncated last frame is kept as far as it goes.
 */
export function demuxLog(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const length = buffer.readUInt32BE(offset + 4);
    if (stream === undefined || stream > 2 || buffer[offset + 1] !== 0 || buffer[offset + 2] !== 0 || buffer[offset + 3] !== 0) {
      // Not multiplexed (a TTY container): the whole buffer is the text.
      return buffer.toString('utf8');
    }
    parts.push(buffer.subarray(offset + 8, Math.min(buffer.length, offset + 8 + length)));
    offset += 8 + length;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** What the runtime announced for this start: its startup id and status port (`startup.serving`). */
export interface AnnouncedEndpoint {
  startupId: string;
  statusPort: number;
}

const STARTUP_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The last `startup.serving` line the runtime printed (its own JSON lines on stderr). The driver
 * reads the log since the container's current start, so an announcement of an earlier start
 * is not taken for this one's; a line that does not parse, or names a bad id or port, is ignored.
 */
export function announcedEndpoint(logText: string): AnnouncedEndpoint | null {
  const lines = logText.split('\n');
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index]!;
    if (!line.includes('"startup.serving"')) continue;
    try {
      const parsed = JSON.parse(line) as { source?: unknown; event?: unknown; startupId?: unknown; statusPort?: unknown };
      if (parsed.source !== 'occ-runtime' || parsed.event !== 'startup.serving') continue;
      const { startupId, statusPort } = parsed;
      if (typeof startupId !== 'string' || !STARTUP_ID.test(startupId)) continue;
      if (typeof statusPort !== 'number' || !Number.isInteger(statusPort) || statusPort < 1 || statusPort > 65535) continue;
      return { startupId, statusPort };
    } catch {
      // Someone else's line that happens to contain the words.
    }
  }
  return null;
}

/** Docker's `since` for a container's StartedAt (RFC 3339 with nanoseconds): seconds with a fraction. */
export function sinceOf(startedAt: string): string {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(startedAt);
  if (!match) return '0';
  const seconds = Math.floor(Date.parse(`${match[1]}${match[3]}`) / 1000);
  return `${seconds}.${(match[2] ?? '0').padEnd(9, '0').slice(0, 9)}`;
}
