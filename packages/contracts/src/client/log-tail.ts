import { pause } from './pause.ts';

/**
 * The lines of `next` that `previous` did not already show. The runtime-logs API has no cursor:
 * both are tails of the same log, so the longest end of `previous` that `next` starts with is
 * what they share and what follows it is new. No overlap at all means more was written than a
 * tail holds, or the log started over (a restarted runtime): all of `next` is new. A run of
 * identical lines is ambiguous in any tail; the longest overlap shows the fewest repeats.
 */
export function newLines(previous: readonly string[], next: readonly string[]): string[] {
  for (let overlap = Math.min(previous.length, next.length); overlap > 0; overlap--) {
    const start = previous.length - overlap;
    let same = true;
    for (let i = 0; i < overlap && same; i++) same = previous[start + i] === next[i];
    if (same) return next.slice(overlap);
  }
  return [...next];
}

export interface FollowLogTailOptions {
  /** Reads the current tail of the log (the same window size every time). */
  read: (signal: AbortSignal) => Promise<string[]>;
  /** The lines that are new since the last read (called only when there are some). */
  onLines: (lines: string[]) => void;
  /** The tail already shown (so its lines are not shown again). */
  seen: readonly string[];
  signal: AbortSignal;
  intervalMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Polls the log and hands over only new lines until the signal aborts (`occ logs -f`, the
 * console's Follow); a failed read ends it (thrown).
 */
export async function followLogTail(options: FollowLogTailOptions): Promise<void> {
  const { read, onLines, signal, intervalMs = 2000, sleep = pause } = options;
  let previous = options.seen;
  while (!signal.aborted) {
    await sleep(intervalMs, signal);
    if (signal.aborted) return;
    let next: string[];
    try {
      next = await read(signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    const fresh = newLines(previous, next);
    if (fresh.length > 0) onLines(fresh);
    previous = next;
  }
}
