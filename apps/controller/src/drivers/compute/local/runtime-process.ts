import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { writePrivateFileAtomic } from '@occ/host-io/private-files';
import { childPids, processLive, processName, signalProcessGroup } from '@occ/host-io/process-group';
import { readIfExists } from '@occ/host-io/private-files';
import { privateDir, type RevisionPaths } from './layout.ts';

/** How to start the runtime (from `@occ/runtime/launch`). */
export interface LaunchCommand {
  command: string;
  args: string[];
  /** What the command reads of this host besides the system directories: all a confined runtime is shown of it. */
  readOnly?: readonly string[];
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  child: ChildProcess;
  /** The process this driver spawned (under confinement: `unshare`, the runtime's parent). */
  pid: number;
  /** The runtime runs as pid 1 of its own pid namespace (sandbox/); its endpoint.json names that pid. */
  sandboxed: boolean;
  /** The pid the runtime sees as its own and writes to endpoint.json. */
  runtimePid: number;
  startedAt: number;
  /** Settles when the process has exited (never rejects). */
  exited: Promise<ExitInfo>;
}

/** A runtime log larger than this is moved to runtime.log.1 before the next start. */
const LOG_ROTATE_BYTES = 8 * 1024 * 1024;

/** Appends one line of the driver's own to a staged revision's runtime log (never a token or a value). */
export function logLine(paths: RevisionPaths, text: string): void {
  try {
    appendFileSync(paths.logFile, `${new Date().toISOString()} [occ-local] ${text}\n`, { mode: 0o600 });
  } catch {
    // Logging never decides an outcome.
  }
}

function rotateLog(paths: RevisionPaths): void {
  try {
    if (statSync(paths.logFile).size > LOG_ROTATE_BYTES) renameSync(paths.logFile, `${paths.logFile}.1`);
  } catch {
    // No log yet.
  }
}

/**
 * Starts one runtime process in its own process group (so the whole tree can be signalled),
 * stdout and stderr appended to the revision's log, with exactly the environment given.
 */
export function spawnRuntime(launch: LaunchCommand, env: Record<string, string>, paths: RevisionPaths, sandboxed = false): RunningProcess {
  privateDir(paths.logs);
  rotateLog(paths);
  const fd = openSync(paths.logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(launch.command, launch.args, { cwd: paths.dir, env, stdio: ['ignore', fd, fd], detached: true });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  if (child.pid === undefined) return { child, pid: -1, sandboxed, runtimePid: -1, startedAt: Date.now(), exited };
  writePrivateFileAtomic(paths.pidFile, `${child.pid}\n`);
  return { child, pid: child.pid, sandboxed, runtimePid: sandboxed ? 1 : child.pid, startedAt: Date.now(), exited };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * SIGTERM to the runtime (it stops its gateway), SIGKILL to its whole group after the grace
 * period, and a final SIGKILL to the group so no grandchild outlives it.
 */
export async function terminate(proc: RunningProcess, graceMs: number): Promise<ExitInfo> {
  if (proc.pid > 0 && proc.child.exitCode === null && proc.child.signalCode === null) {
    signalRuntime(proc.pid, proc.sandboxed, 'SIGTERM');
    const timer = setTimeout(() => signalProcessGroup(proc.pid, 'SIGKILL'), graceMs);
    await proc.exited;
    clearTimeout(timer);
  }
  const info = await proc.exited;
  signalProcessGroup(proc.pid, 'SIGKILL');
  return info;
}

/**
 * Signals the runtime itself. Confined, `pid` is `unshare`, which ignores SIGTERM while it waits
 * for its child: the runtime is that child (pid 1 of the sandbox; its exit ends every process in it).
 */
function signalRuntime(pid: number, sandboxed: boolean, signal: NodeJS.Signals): boolean {
  const target = sandboxed ? childPids(pid)[0] : pid;
  if (target === undefined) return signalProcessGroup(pid, signal);
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is a runtime this driver started for the revision directory: its environment
 * names that directory. (Linux /proc; elsewhere nothing can be proven and nothing is signalled.)
 */
function isOurRuntime(pid: number, revisionDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).toString('utf8').split('\u0000').includes(`OCC_RUNTIME_REVISION_DIR=${revisionDir}`);
  } catch {
    return false;
  }
}

/** The live processes whose process group is `pgid` (Linux /proc). */
function groupMembers(pgid: number): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^[0-9]+$/.test(entry))
      .map(Number)
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/**
 * Stops a runtime that no process of ours holds as a child any more (left behind when OCC was
 * killed): the pid recorded at spawn, proven to be our runtime for this very revision directory.
 */
export async function reapStray(paths: RevisionPaths, graceMs: number): Promise<boolean> {
  const pid = Number((readIfExists(paths.pidFile) ?? '').trim());
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return false;
  if (!isOurRuntime(pid, paths.dir)) {
    // A confined runtime outlives its dead `unshare` (changing uid clears the parent-death signal):
    // its process group is still the recorded pid, and its environment still names the revision.
    if (!groupMembers(pid).some((member) => isOurRuntime(member, paths.dir))) return false;
    signalProcessGroup(pid, 'SIGKILL');
    await groupGone(pid);
    return true;
  }
  if (!signalRuntime(pid, processName(pid) === 'unshare', 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isOurRuntime(pid, paths.dir)) await delay(50);
  signalProcessGroup(pid, 'SIGKILL');
  await groupGone(pid);
  return true;
}

/** How long a killed group may take to finish exiting on a loaded host before a restart goes ahead anyway. */
const EXIT_WAIT_MS = 10_000;

/**
 * Waits until the group led by `pid` has no live member. A process stops looking like our runtime
 * (its environment unreadable) while it is still exiting; starting the next runtime then would
 * briefly run two of one revision.
 */
async function groupGone(pid: number): Promise<void> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < deadline && (processLive(pid) || groupMembers(pid).some(processLive))) await delay(25);
}
