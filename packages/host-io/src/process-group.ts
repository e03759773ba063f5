import { readFileSync } from 'node:fs';

/** `kill(-pid, signal)` for a real group only; false when there is no such group (or no valid leader). */
function killGroup(pid: number | undefined, signal: NodeJS.Signals | 0): boolean {
  // -0 and -1 are not groups: -1 would signal every process this user may signal.
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends `signal` to the whole process group led by `pid` (a child spawned `detached`), so the
 * grandchildren it started (npm, the gateway, the app-server) get it too. A group that is
 * already gone is not an error: false says nothing was signalled.
 */
export function signalProcessGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  return killGroup(pid, signal);
}

/** Whether any process of the group led by `pid` still exists (signal 0 probes without signalling). */
export function processGroupAlive(pid: number | undefined): boolean {
  return killGroup(pid, 0);
}

/** The direct children of `pid` (Linux `/proc/<pid>/task/<pid>/children`); empty when unreadable. */
export function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((entry) => entry !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** The command name of `pid` (`/proc/<pid>/comm`), or null when it is gone. */
export function processName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Whether `pid` is a live process: it exists and is not a zombie waiting to be reaped. */
export function processLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) S …`: the state follows the last ')' (comm may hold one).
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
