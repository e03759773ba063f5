import { pause } from './follow-events.ts';

/**
 * The lines of `next` that `previous` did not already show. Both are tails of the same log, so
 * the longest end of `previous` that `next` starts with is what they share; what follows it is
 * new. No overlap at all means more was written than a tail holds, or the log started over (a
 * restarted runtime): all of `next` is new. A run of identical lines is ambiguous in any tail;
 * the longest overlap prints the fewest repeats.
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

export interface FollowLogsOptions {
  /** Reads the current tail of the log (the same window size every time). */
  read: (signal: AbortSignal) => Promise<string[]>;
  write: (line: string) => void;
  /** The tail already shown (so its lines are not printed again). */
  seen: readonly string[];
  signal: AbortSignal;
  intervalMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Polls the log and prints only new lines until the signal aborts (Ctrl-C). */
export async function followLogs(options: FollowLogsOptions): Promise<void> {
  const { read, write, signal, intervalMs = 2000, sleep = pause } = options;
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
    for (const line of newLines(previous, next)) write(line);
    previous = next;
  }
}
