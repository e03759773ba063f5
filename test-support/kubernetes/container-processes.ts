import { readdirSync, readFileSync } from 'node:fs';

/** A process identified by pid and start time, so a reused pid is never mistaken for it. */
interface Known {
  pid: number;
  start: string;
}

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state (field 3); a zombie is as good as gone.
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

function children(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/**
 * Every process a container started, as far as this host can tell: the main process's
 * descendants, remembered while they are still in its tree (a child that daemonizes or starts its
 * own process group is still "in the container"). A real container runtime kills all of them when
 * the container stops; the fake kubelet does the same with this list (Linux /proc).
 */
export class ContainerProcesses {
  private readonly known = new Map<number, Known>();

  constructor(private readonly mainPid: number) {}

  /** Adds the processes now in the main process's tree (call it while the tree is intact). */
  refresh(): void {
    const queue = [this.mainPid];
    while (queue.length) {
      const pid = queue.shift()!;
      const start = startTime(pid);
      if (start === undefined) continue;
      this.known.set(pid, { pid, start });
      queue.push(...children(pid));
    }
    for (const [pid, known] of this.known) if (startTime(pid) !== known.start) this.known.delete(pid);
  }

  /** SIGKILL every remembered process that is still the same process. */
  killAll(): void {
    for (const { pid, start } of this.known.values()) {
      if (startTime(pid) !== start) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }

  alive(): boolean {
    return [...this.known.values()].some(({ pid, start }) => startTime(pid) === start);
  }

  /** Signals the container's process group: the main process was spawned detached, so it leads one. */
  signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.mainPid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** Waits (up to 2 s) until no process of the container (its group, its remembered tree) remains. */
  async gone(): Promise<void> {
    for (let i = 0; i < 40; i++) {
      let group = true;
      try {
        process.kill(-this.mainPid, 0);
      } catch {
        group = false;
      }
      if (!group && !this.alive()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
