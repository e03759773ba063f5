import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readIfExists } from '@occ/host-io/private-files';

const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One supervisor per root: runtimes are children of the process that started them, so two
 * processes (or two drivers in one) supervising the same Agents would fight over them.
 * A lock left by a process that is gone is taken over.
 */
export function acquireSupervisorLock(root: string): () => void {
  const path = join(root, 'supervisor.pid');
  if (held.has(path)) throw new Error(`The local ComputeDriver under ${root} is already running in this process.`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = Number((readIfExists(path) ?? '').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new Error(`Another process (pid ${holder}) supervises the local runtimes under ${root}.`);
      }
      rmSync(path, { force: true });
    }
  }
  held.add(path);
  return () => {
    held.delete(path);
    if ((readIfExists(path) ?? '').trim() === String(process.pid)) rmSync(path, { force: true });
  };
}
