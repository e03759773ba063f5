// Who listens on the gateway's port? `openclaw gateway run` refuses `--port 0`, so the runtime
// picks a free port and hands it over; another process could take it in between. Before anyone
// sends the gateway token to that port, the runtime proves (Linux /proc) that every socket
// listening on it belongs to the gateway's own process tree: a lost race fails closed.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

/** /proc/net/tcp's hex form of an IPv4 address (the kernel prints it in host byte order: little-endian here). */
export function procIPv4(address: string): string {
  return address
    .split('.')
    .reverse()
    .map((octet) => Number(octet).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

const WILDCARDS = new Set(['00000000', '00000000000000000000000000000000']);

/**
 * Socket inodes listening on `port`, from the text of /proc/net/tcp or /proc/net/tcp6. With
 * `address` (the IPv4 the gateway binds, when not every interface), only listeners on that
 * address or on the wildcard count: in a pod's shared host network (a test kubelet) another
 * pod's gateway on its own address is not in the way.
 */
export function listeningInodes(procNetText: string, port: number, address?: string): string[] {
  const wanted = address === undefined ? null : procIPv4(address);
  const inodes: string[] = [];
  for (const line of procNetText.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (!local || fields[3] !== LISTEN) continue;
    const separator = local.lastIndexOf(':');
    const host = local.slice(0, separator).toUpperCase();
    if (wanted !== null && host !== wanted && !WILDCARDS.has(host)) continue;
    if (Number.parseInt(local.slice(separator + 1), 16) === port && fields[9]) inodes.push(fields[9]);
  }
  return inodes;
}

/** The parent pid in the text of /proc/<pid>/stat (the command may contain spaces and parentheses). */
export function parentPid(statText: string): number | null {
  const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** `root` and every process descended from it, now. */
function processTree(root: number): Set<number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    const ppid = stat === null ? null : parentPid(stat);
    if (ppid !== null) parents.set(pid, ppid);
  }
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return tree;
}

function socketInodesOf(pids: Iterable<number>): Set<string> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  return inodes;
}

/** `unverifiable`: this host has no Linux /proc to prove it (the runtime refuses to guess). */
export type PortOwnership = 'gateway' | 'nobody' | 'another process' | 'unverifiable';

/** Whether the listeners on `port` (IPv4 and IPv6) are all the gateway's (`gatewayPid` and its descendants). */
export function portOwnership(port: number, gatewayPid: number, address?: string): PortOwnership {
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].map(read);
  if (tables.every((table) => table === null)) return 'unverifiable';
  // The gateway binds IPv4: of the IPv6 listeners only a wildcard one (dual-stack) can take its connections.
  const listeners = [...listeningInodes(tables[0] ?? '', port, address), ...listeningInodes(tables[1] ?? '', port, address === undefined ? undefined : '0.0.0.0')];
  if (listeners.length === 0) return 'nobody';
  const owned = socketInodesOf(processTree(gatewayPid));
  return listeners.every((inode) => owned.has(inode)) ? 'gateway' : 'another process';
}
