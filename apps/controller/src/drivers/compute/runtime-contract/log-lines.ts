import { RUNTIME_LOG_TAIL_MAX } from '@occ/contracts';
import type { RuntimeLogs } from '../../../core/ports/compute-driver.ts';

/** How many lines one log read returns: the caller's `tail` within the contract's bounds (1…RUNTIME_LOG_TAIL_MAX). */
export const tailLength = (tail: number): number => Math.min(RUNTIME_LOG_TAIL_MAX, Math.max(1, Math.floor(tail)));

/**
 * The last `count` lines of a log's `text` (a final newline ends the last line, it starts no
 * empty one), each redacted whole (redaction.ts, `lineRedactor`) before any driver cuts it to
 * size; `truncated` when earlier lines were left out.
 */
export function lastLines(text: string, count: number, redact: (line: string) => string): RuntimeLogs {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return { lines: all.slice(-count).map(redact), truncated: all.length > count };
}
