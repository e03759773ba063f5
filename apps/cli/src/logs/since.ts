import { InvalidArgumentError } from 'commander';

/**
 * `occ logs --since`: the runtime log has no timestamps of its own (the API answers lines), but
 * nearly every line carries one — OpenClaw's and the local driver's start with an ISO 8601 time,
 * the runtime's JSON events have `time`. So the CLI filters what it read: a line without a time
 * of its own (npm's output, a stack trace) goes with the line above it.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
/** A date, or a date and time with seconds and a zone (RFC 3339), as `--since` takes a point in time. */
const POINT_IN_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/** `--since 10m`, `1h30m`, `2d`, or a time `2026-12-03T09:00:00Z` / a date `2026-12-03` (UTC midnight): the earliest time to show, in ms. */
export function parseSince(value: string, now = Date.now()): number {
  const text = value.trim();
  if (DURATION.test(text)) {
    let total = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
    return now - total;
  }
  const at = POINT_IN_TIME.test(text) ? Date.parse(text.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidArgumentError('a duration such as 10m, 1h30m or 2d, or a time such as 2026-12-03T09:00:00Z (with its zone)');
  return at;
}

const LEADING_TIME = /^\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))/i;

/** The time a log line carries (a leading ISO 8601 time with its zone, or a JSON event's `time`), or null. */
export function lineTime(line: string): number | null {
  const leading = LEADING_TIME.exec(line);
  if (leading) return Date.parse(leading[1]!.replace(' ', 'T'));
  if (!line.startsWith('{')) return null;
  try {
    const time = (JSON.parse(line) as { time?: unknown }).time;
    const parsed = typeof time === 'string' ? Date.parse(time) : Number.NaN;
    return Number.isNaN(parsed) ? null : parsed;
  } catch {
    return null;
  }
}

/**
 * The lines at or after `since`. An untimed line belongs to the timed line above it; untimed
 * lines at the top of the window belong to a line not read, so their time is unknown and they are
 * left out.
 */
export function linesSince(lines: readonly string[], since: number): { lines: string[]; firstTime: number | null } {
  let current: number | null = null;
  let firstTime: number | null = null;
  const kept: string[] = [];
  for (const line of lines) {
    current = lineTime(line) ?? current;
    firstTime ??= current;
    if (current !== null && current >= since) kept.push(line);
  }
  return { lines: kept, firstTime };
}

/**
 * `--since` (and `--tail`, then the last that many of them) over one window the API answered:
 * what to print, whether the API's `truncated` still holds, and what a person should know
 * (stderr): that earlier lines may be recent too, or that no line says when it was written.
 */
export function selectSince(window: { lines: string[]; truncated: boolean }, since: number, tail?: number): { lines: string[]; truncated: boolean; warning: string | null } {
  const { lines, firstTime } = linesSince(window.lines, since);
  const shown = tail === undefined ? lines : lines.slice(-tail);
  // Lines before the window exist, and the window starts inside the period asked for.
  const cut = window.truncated && (firstTime === null || firstTime >= since);
  let warning: string | null = null;
  if (window.lines.length > 0 && firstTime === null) warning = `None of the ${window.lines.length} lines read carries a time, so --since cannot tell which are recent.`;
  else if (cut) warning = `Only the last ${window.lines.length} lines of the log can be read; earlier lines since then are not shown.`;
  return { lines: shown, truncated: cut || shown.length < lines.length, warning };
}
