import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

/**
 * What one runtime sees of this host (docs/security.md, "local"): a new root on a private tmpfs
 * holding only these paths, each at its own host path.
 */
export interface SandboxPlan {
  /** An existing empty directory the new root is mounted on (inside the private mount namespace only). */
  root: string;
  /** Host files or directories shown read-only: the toolchain, the runtime's code, the operator's catalog and CA files. */
  readOnly: readonly string[];
  /**
   * The operator's files a runtime reads (catalog, CA bundles, local Codex marketplaces): copied
   * into the sandbox readable by the runtime's uid, because the operator's own may be private to OCC.
   */
  copied: readonly string[];
  /** The Agent's own directories, shown read-write (chowned to `user` when OCC runs as root). */
  readWrite: readonly string[];
  /** Files inside `readWrite` shown read-only on top (the revision's manifest): the runtime reads them, nothing inside changes them. */
  readOnlyOverlays: readonly string[];
  /** Paths inside `readWrite` or `readOnly` replaced by an empty, unreadable tmpfs (the driver's logs and pid file, OCC's data directory). */
  hidden: readonly string[];
  /** The working directory of the runtime. */
  cwd: string;
  /**
   * Who the runtime runs as. A uid/gid: OCC runs as root and the runtime gets its own
   * unprivileged identity. null: OCC is unprivileged; a user namespace maps the runtime to OCC's
   * own user with no capabilities.
   */
  user: { uid: number; gid: number } | null;
  /** A separate network namespace with loopback only: the host's ports (OCC's API, PostgreSQL, other Agents) do not exist inside. */
  isolateNetwork: boolean;
  /** The directory (inside `readWrite`) holding the network bridge's sockets (sandbox/host-bridge.ts). */
  bridgeDir: string;
}

export interface SandboxedCommand {
  command: string;
  args: string[];
}

/** System directories shown read-only (or as the same symlink, on merged-/usr systems). */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** /tmp is a private tmpfs (TMPDIR, the Agent's own temp directory, is where the runtime writes). */
const TMP_SIZE = '256m';
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** POSIX shell single quoting: the one way a host path reaches the script. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function isWithin(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * `unshare` (util-linux, on every Linux) runs a POSIX shell as pid 1 of new mount, pid, IPC and
 * UTS namespaces (and a user and network namespace when asked); the shell builds the new root
 * from the plan, then `chroot` and `setpriv` (no new privileges, no capabilities, the runtime's
 * own uid) exec the runtime, which becomes pid 1: when it exits, everything it started dies.
 * Nothing here propagates to the host (unshare makes every mount private).
 */
export function sandboxCommand(plan: SandboxPlan, launch: { command: string; args: readonly string[] }): SandboxedCommand {
  const q = shellQuote;
  const R = (path: string) => q(`${plan.root}${path}`);
  const lines: string[] = ['set -eu', `mount -t tmpfs -o mode=0755,size=64m,nosuid,nodev occ-sandbox ${q(plan.root)}`];
  // A private /tmp first: host paths under /tmp (a test's data directory) are mounted on top of it.
  lines.push(`mkdir -p ${R('/tmp')}`, `mount -t tmpfs -o mode=1777,size=${TMP_SIZE},nosuid,nodev occ-tmp ${R('/tmp')}`);
  const bindReadOnly = (source: string) => {
    const found = statOrNull(source);
    // A path that does not exist is not shown (the runtime reports what it misses, as it would without confinement).
    if (found === null) return;
    const directory = found.isDirectory();
    lines.push(directory ? `mkdir -p ${R(source)}` : `mkdir -p "$(dirname ${R(source)})" && touch ${R(source)}`);
    lines.push(`mount --rbind ${q(source)} ${R(source)}`, `mount -o remount,bind,ro,nosuid,nodev ${R(source)}`);
  };
  for (const path of SYSTEM_PATHS) {
    const entry = lstatOrNull(path);
    if (entry?.isSymbolicLink()) lines.push(`ln -s ${q(readlinkSync(path))} ${R(path)}`);
    else if (entry?.isDirectory()) bindReadOnly(path);
  }
  const outsideSystem = (path: string) => !SYSTEM_PATHS.some((system) => isWithin(path, system));
  for (const path of plan.readOnly) if (outsideSystem(path)) bindReadOnly(path);
  for (const path of plan.copied) {
    if (!outsideSystem(path) || statOrNull(path) === null) continue;
    lines.push(`mkdir -p "$(dirname ${R(path)})"`, `cp -R -L ${q(path)} ${R(path)}`, `chmod -R a+rX,go-w ${R(path)}`);
  }
  if (plan.user !== null) {
    const owner = `${plan.user.uid}:${plan.user.gid}`;
    // -h: a symlink the Agent left is changed itself, never what it points to.
    lines.push(`chown -R -h ${owner} ${plan.readWrite.map(q).join(' ')}`);
    // What the driver keeps inside the Agent's directories stays the driver's.
    for (const path of plan.hidden) if (plan.readWrite.some((shown) => isWithin(path, shown))) lines.push(`if [ -e ${q(path)} ]; then chown -R -h 0:0 ${q(path)}; fi`);
  }
  for (const path of plan.readWrite) lines.push(`mkdir -p ${R(path)}`, `mount --bind ${q(path)} ${R(path)}`);
  for (const file of plan.readOnlyOverlays) lines.push(`mount --bind ${q(file)} ${R(file)}`, `mount -o remount,bind,ro ${R(file)}`);
  for (const path of plan.hidden) {
    if (![...plan.readWrite, ...plan.readOnly].some((shown) => isWithin(path, shown))) continue;
    lines.push(`if [ -d ${R(path)} ]; then mount -t tmpfs -o size=4k,mode=000 occ-hidden ${R(path)}; elif [ -e ${R(path)} ]; then mount --bind /dev/null ${R(path)}; fi`);
  }
  lines.push(`mkdir -p ${R('/dev')}`, `mount -t tmpfs -o mode=0755,size=64k,nosuid occ-dev ${R('/dev')}`);
  for (const device of DEVICES) lines.push(`touch ${R(`/dev/${device}`)}`, `mount --bind /dev/${device} ${R(`/dev/${device}`)}`);
  lines.push(
    `ln -s /proc/self/fd ${R('/dev/fd')}`,
    `ln -s /proc/self/fd/0 ${R('/dev/stdin')}`,
    `ln -s /proc/self/fd/1 ${R('/dev/stdout')}`,
    `ln -s /proc/self/fd/2 ${R('/dev/stderr')}`,
  );
  lines.push(`mkdir -p ${R('/dev/shm')} ${R('/dev/pts')}`, `mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev occ-shm ${R('/dev/shm')}`);
  // A terminal tool needs a pty; a private devpts instance, or none where the kernel refuses one.
  lines.push(`mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts ${R('/dev/pts')} 2>/dev/null && ln -s pts/ptmx ${R('/dev/ptmx')} || true`);
  // This pid namespace's processes only; hidepid keeps even those of another uid out of sight.
  lines.push(
    `mkdir -p ${R('/proc')}`,
    `mount -t proc -o nosuid,nodev,noexec,hidepid=invisible occ-proc ${R('/proc')} 2>/dev/null || mount -t proc -o nosuid,nodev,noexec occ-proc ${R('/proc')}`,
  );
  // A new network namespace's loopback starts down; iproute2 brings it up (nothing else can).
  if (plan.isolateNetwork) lines.push('ip link set lo up');
  const drop = ['setpriv', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all'];
  if (plan.user !== null) drop.push(`--reuid=${plan.user.uid}`, `--regid=${plan.user.gid}`, '--clear-groups');
  // The shell after chroot only changes directory, then becomes setpriv, which becomes the runtime.
  lines.push(
    `exec chroot ${q(plan.root)} /bin/sh -c 'cd "$0" && unset PWD OLDPWD && exec "$@"' ${q(plan.cwd)} ${[...drop, '--', launch.command, ...launch.args].map(q).join(' ')}`,
  );
  const namespaces = [
    '--mount',
    '--pid',
    '--fork',
    '--kill-child',
    '--ipc',
    '--uts',
    ...(plan.isolateNetwork ? ['--net'] : []),
    ...(plan.user === null ? ['--user', '--map-root-user'] : []),
  ];
  return { command: 'unshare', args: [...namespaces, '--', '/bin/sh', '-c', lines.join('\n')] };
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
