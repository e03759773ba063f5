import { ALIVE, quote, type HostRevisionPaths } from './host-files.ts';

/** One revision the host holds for an Agent (host-files.ts, `listScript`). */
export interface HostRuntime {
  revisionId: string;
  pid: number;
  running: boolean;
}

/** Where a running runtime says it serves its status (its endpoint.json), trusted only for the pid OCC's launcher recorded. */
export interface HostEndpoint {
  statusPort: number;
  startupId: string;
}

const MAX_ENDPOINT_CHARS = 4096;
const STARTUP_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * One look at a revision's runtime on the host: `running <pid>` when its recorded process lives
 * and runs in the revision's directory (else `stopped`), then its endpoint.json.
 */
export function observeScript(paths: HostRevisionPaths): string {
  const q = quote;
  return [
    ALIVE,
    `pid=$(cat ${q(paths.pidFile)} 2>/dev/null || true)`,
    'case "$pid" in ""|*[!0-9]*) pid=;; esac',
    `if alive "$pid" ${q(paths.dir)}; then`,
    '  echo "running $pid"',
    `  head -c ${MAX_ENDPOINT_CHARS} ${q(paths.endpoint)} 2>/dev/null || true`,
    'else',
    '  echo stopped',
    'fi',
  ].join('\n');
}

/** The look's answer: an endpoint written by another process than the recorded one is not this start's (a previous start, a stray). */
export function parseObserved(stdout: string): { running: boolean; endpoint: HostEndpoint | null } {
  const newline = stdout.indexOf('\n');
  const head = /^running ([0-9]+)$/.exec(newline < 0 ? stdout : stdout.slice(0, newline));
  if (!head) return { running: false, endpoint: null };
  const pid = Number(head[1]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.slice(newline + 1) || 'null');
  } catch {
    return { running: true, endpoint: null };
  }
  const e = parsed as { pid?: unknown; statusPort?: unknown; startupId?: unknown } | null;
  if (e?.pid !== pid || !Number.isInteger(e.statusPort) || (e.statusPort as number) < 1 || (e.statusPort as number) > 65535) return { running: true, endpoint: null };
  if (typeof e.startupId !== 'string' || !STARTUP_ID.test(e.startupId)) return { running: true, endpoint: null };
  return { running: true, endpoint: { statusPort: e.statusPort as number, startupId: e.startupId } };
}
