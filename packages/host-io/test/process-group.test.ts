import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processGroupAlive, signalProcessGroup } from '../src/process-group.ts';

/** Gone, or a zombie nobody reaped yet (a container's pid 1 may not reap). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
}

async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('signalProcessGroup', () => {
  it('signals the leader and the grandchildren it started', async () => {
    const leader = spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const [line] = (await once(leader.stdout!, 'data')) as [Buffer];
    const grandchild = Number(line.toString().trim());
    expect(gone(grandchild)).toBe(false);
    const exited = once(leader, 'exit');
    expect(signalProcessGroup(leader.pid, 'SIGTERM')).toBe(true);
    await exited;
    expect(await until(() => gone(grandchild))).toBe(true);
  });

  it('says false for a group that is already gone', async () => {
    const leader = spawn('sh', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' });
    await once(leader, 'exit');
    expect(signalProcessGroup(leader.pid, 'SIGKILL')).toBe(false);
  });

  it.each([undefined, 0, 1, -1, 2.5])('never signals %j (no group, or every process of this user)', (pid) => {
    expect(signalProcessGroup(pid, 'SIGKILL')).toBe(false);
  });
});

describe('processGroupAlive', () => {
  it('is true while the group runs and false once it is gone, without signalling it', async () => {
    // A group of one (no shell that might fork): Node reaps it before 'exit', so no zombie is left.
    const leader = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processGroupAlive(leader.pid)).toBe(true);
    expect(processGroupAlive(leader.pid)).toBe(true);
    const exited = once(leader, 'exit');
    signalProcessGroup(leader.pid, 'SIGKILL');
    await exited;
    expect(processGroupAlive(leader.pid)).toBe(false);
  });

  it.each([undefined, 0, 1, -1, 2.5])('is false for %j (no group)', (pid) => {
    expect(processGroupAlive(pid)).toBe(false);
  });
});
