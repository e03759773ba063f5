import { posix } from 'node:path';
import { isAgentId, isRevisionId } from '../runtime-contract/runnable-revision.ts';

/**
 * The ssh driver's files on the host (Linux), under the Agents' directory:
 *
 *   <agentsDir>/<agentId>/                 (0700) the Agent's private directory
 *       state/ home/ tmp/                  its OpenClaw state (kept across revisions), HOME, TMPDIR
 *       revisions/<revisionId>/            (0700) manifest.json, endpoint.json, runtime.pid, runtime.log (0600)
 *
 * Every path is built from validated ids and a validated base, and every command is built from
 * those paths single-quoted: nothing an operator or a caller wrote is ever parsed by the host's
 * shell. No Secret is ever in a file here: a start's Secrets reach the runtime on stdin.
 */
export interface HostRevisionPaths {
  agentDir: string;
  state: string;
  home: string;
  tmp: string;
  dir: string;
  manifest: string;
  endpoint: string;
  pidFile: string;
  log: string;
}

export function agentDirOf(agentsDir: string, agentId: string): string {
  if (!isAgentId(agentId)) throw new Error('Not an Agent id.');
  return posix.join(agentsDir, agentId);
}

export function hostRevisionPaths(agentsDir: string, agentId: string, revisionId: string): HostRevisionPaths {
  if (!isRevisionId(revisionId)) throw new Error('Not a revision id.');
  const agentDir = agentDirOf(agentsDir, agentId);
  const dir = posix.join(agentDir, 'revisions', revisionId);
  const file = (name: string) => posix.join(dir, name);
  return {
    agentDir,
    state: posix.join(agentDir, 'state'),
    home: posix.join(agentDir, 'home'),
    tmp: posix.join(agentDir, 'tmp'),
    dir,
    manifest: file('manifest.json'),
    endpoint: file('endpoint.json'),
    pidFile: file('runtime.pid'),
    log: file('runtime.log'),
  };
}

/** One argument for the host's POSIX shell. */
export function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Exit status of a staging script that found no runtime at the workspace. */
export const TOOLCHAIN_MISSING_EXIT = 3;

/**
 * Checks the pinned runtime is installed, makes the Agent's private directories (0700) and
 * writes the manifest from stdin (0600, replaced whole). The Agent's state is made once and
 * otherwise left alone [P-5].
 */
export function stageScript(paths: HostRevisionPaths, toolchain: readonly string[]): string {
  const q = quote;
  return [
    'set -e',
    'umask 077',
    `for f in ${toolchain.map(q).join(' ')}; do [ -r "$f" ] || exit ${TOOLCHAIN_MISSING_EXIT}; done`,
    `mkdir -p ${q(paths.state)} ${q(paths.home)} ${q(paths.tmp)} ${q(paths.dir)}`,
    `chmod 700 ${q(paths.agentDir)} ${q(paths.home)} ${q(paths.tmp)} ${q(posix.dirname(paths.dir))} ${q(paths.dir)}`,
    `cat > ${q(`${paths.manifest}.tmp`)}`,
    `mv -f ${q(`${paths.manifest}.tmp`)} ${q(paths.manifest)}`,
    // A start announces itself anew: nothing of an earlier start is read as this one's.
    `rm -f ${q(paths.endpoint)} ${q(paths.pidFile)}`,
  ].join('\n');
}

/**
 * `alive <pid> <dir>`: the process lives AND runs in `dir` (its working directory, which the
 * launcher sets to the revision's; compared with symbolic links resolved): a pid the kernel gave
 * to another process since is never ours.
 */
export const ALIVE = `alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ "$(readlink "/proc/$1/cwd" 2>/dev/null)" = "$(cd "$2" 2>/dev/null && pwd -P)" ]; }`;

/**
 * `group_lives <pgid>`: a process of that group runs (not a zombie). Reads `/proc/<pid>/stat` with
 * the shell's own `read` (no process per entry); the fields after the last `) ` are the state, the
 * parent and the group, whatever the command's name holds.
 */
const GROUP_LIVES = `group_lives() { g=$1; for f in /proc/[0-9]*/stat; do read -r s 2>/dev/null < "$f" || continue; set -- \${s##*) }; [ "$3" = "$g" ] && [ "$1" != Z ] && return 0; done; return 1; }`;

/** One line per revision directory of the Agent: `<revisionId> <pid or 0> <1 when it runs>`. */
export function listScript(agentsDir: string, agentId: string): string {
  const revisions = posix.join(agentDirOf(agentsDir, agentId), 'revisions');
  return [
    ALIVE,
    // No directory yet: no revision. One that cannot be entered (its mode changed under OCC) is an error, never "nothing runs".
    `[ -e ${quote(revisions)} ] || exit 0`,
    `cd ${quote(revisions)} || exit 4`,
    'for r in *; do',
    '  [ -d "$r" ] || continue',
    '  pid=$(cat "$r/runtime.pid" 2>/dev/null || true)',
    // Only a number is a pid: the file is in the Agent's own directory, and a line of it is never printed.
    '  case "$pid" in ""|*[!0-9]*) pid=0;; esac',
    '  if alive "$pid" "$PWD/$r"; then echo "$r $pid 1"; else echo "$r ${pid:-0} 0"; fi',
    'done',
  ].join('\n');
}

/**
 * Stops a revision's runtime: SIGTERM to its process group (it gives its gateway 20 s), SIGKILL
 * to what is left after `graceSeconds`. Idempotent; `remove` also deletes its directory.
 */
export function stopScript(paths: HostRevisionPaths, graceSeconds: number, remove: boolean): string {
  const q = quote;
  return [
    ALIVE,
    `pid=$(cat ${q(paths.pidFile)} 2>/dev/null || true)`,
    `if alive "$pid" ${q(paths.dir)}; then`,
    // `kill -s SIG -- -pgid`: the POSIX form that dash (Debian's sh) and bash both take; dash refuses `kill -TERM -- -pgid`.
    '  kill -s TERM -- "-$pid" 2>/dev/null || kill -s TERM "$pid" 2>/dev/null || true',
    `  i=0; while alive "$pid" ${q(paths.dir)} && [ "$i" -lt ${graceSeconds * 10} ]; do sleep 0.1; i=$((i+1)); done`,
    '  kill -s KILL -- "-$pid" 2>/dev/null || true',
    // Gone, not dying: a killed runtime and its gateway tear down their memory for a while, and the next start must
    // not overlap them. Every member of the group counts (the gateway may outlive the runtime by a moment); a zombie
    // waiting for its parent does not.
    GROUP_LIVES,
    '  i=0; while group_lives "$pid" && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i+1)); done',
    'fi',
    `rm -f ${q(paths.pidFile)} ${q(paths.endpoint)}`,
    ...(remove ? [`rm -rf ${q(paths.dir)}`] : []),
  ].join('\n');
}

/** The last `lines` lines of the runtime's log, at most `maxBytes` of it. */
export function logScript(paths: HostRevisionPaths, lines: number, maxBytes: number): string {
  return `[ -f ${quote(paths.log)} ] || exit 0\ntail -c ${maxBytes} ${quote(paths.log)} | tail -n ${lines}`;
}
