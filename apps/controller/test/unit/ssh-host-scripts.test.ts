import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hostRevisionPaths, listScript, stopScript, type HostRevisionPaths } from '../../src/drivers/compute/ssh/host-files.ts';
import { observeScript, parseObserved } from '../../src/drivers/compute/ssh/observe.ts';

// The scripts the ssh driver runs on its host, run here by the same POSIX shell (`sh -c`, as sshd
// runs a command) against real processes: what they report of a runtime, and what an Agent —
// which runs as the host's user and owns the files they read — can make them believe.
let root: string;
const agentId = `agt_${randomUUID()}`;
const children: ChildProcess[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'occ-ssh-scripts-'));
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const sh = (script: string) => execFileSync('sh', ['-c', script], { encoding: 'utf8' });

/**
 * A revision directory, and a stand-in runtime working in `cwd` (default: that directory): a
 * detached shell in its own process group with one child of its own (as the runtime has its
 * gateway), whose pid it writes to `child.pid` there.
 */
function revision(cwd?: string): { paths: HostRevisionPaths; child: ChildProcess } {
  const paths = hostRevisionPaths(root, agentId, `rev_${randomUUID()}`);
  mkdirSync(paths.dir, { recursive: true });
  const child = spawn('sh', ['-c', `sleep 60 & echo $! > '${paths.dir}/child.pid'; wait`], { cwd: cwd ?? paths.dir, detached: true, stdio: 'ignore' });
  children.push(child);
  return { paths, child };
}

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 50 && !existsSync(path); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Running, not a zombie waiting for a parent (or init) to reap it. */
const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

describe("the ssh driver's host scripts, under a real shell", () => {
  it('list: a recorded pid runs only when that process works in the revision directory; a forged pid file changes nothing and injects no line', () => {
    const ours = revision();
    writeFileSync(ours.paths.pidFile, `${ours.child.pid}\n`);
    // The Agent points its pid file at a process of another directory (it could be any of the user's).
    const elsewhere = revision(root);
    writeFileSync(elsewhere.paths.pidFile, `${elsewhere.child.pid}\n`);
    // ...or writes lines that would read as another revision's entry.
    const forged = revision();
    const injected = `rev_${randomUUID()}`;
    writeFileSync(forged.paths.pidFile, `${forged.child.pid}\n${injected} ${forged.child.pid} 1\n`);

    const lines = sh(listScript(root, agentId)).trim().split('\n').sort();
    const name = (p: HostRevisionPaths) => p.dir.split('/').at(-1)!;
    expect(lines).toEqual([`${name(ours.paths)} ${ours.child.pid} 1`, `${name(elsewhere.paths)} ${elsewhere.child.pid} 0`, `${name(forged.paths)} 0 0`].sort());
    expect(lines.join('\n')).not.toContain(injected);
  });

  it('observe: running with the endpoint only the recorded process announced; stopped otherwise', () => {
    const { paths, child } = revision();
    writeFileSync(paths.pidFile, `${child.pid}\n`);
    writeFileSync(paths.endpoint, JSON.stringify({ pid: child.pid, statusPort: 41234, startupId: 'abcdefghijklmnopqrstuvwx' }));
    expect(parseObserved(sh(observeScript(paths)))).toEqual({ running: true, endpoint: { statusPort: 41234, startupId: 'abcdefghijklmnopqrstuvwx' } });
    writeFileSync(paths.endpoint, JSON.stringify({ pid: child.pid! + 1, statusPort: 41234, startupId: 'abcdefghijklmnopqrstuvwx' }));
    expect(parseObserved(sh(observeScript(paths)))).toEqual({ running: true, endpoint: null });
    writeFileSync(paths.pidFile, 'not a pid; echo running 1');
    expect(parseObserved(sh(observeScript(paths)))).toEqual({ running: false, endpoint: null });
  });

  it('stop: the process group ends (SIGTERM, then SIGKILL after the grace), the pid file goes; a second stop does nothing; remove deletes the directory', async () => {
    const { paths, child } = revision();
    writeFileSync(paths.pidFile, `${child.pid}\n`);
    // The runtime's own child (its gateway) is in its process group: the stop ends it too.
    await waitForFile(join(paths.dir, 'child.pid'));
    const grandchild = Number(readFileSync(join(paths.dir, 'child.pid'), 'utf8'));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    sh(stopScript(paths, 1, false));
    await exited;
    expect(alive(child.pid!)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    expect(existsSync(paths.pidFile)).toBe(false);
    sh(stopScript(paths, 1, false));
    sh(stopScript(paths, 1, true));
    expect(existsSync(paths.dir)).toBe(false);

    // One that ignores SIGTERM is killed once the grace has passed.
    const stubborn = hostRevisionPaths(root, agentId, `rev_${randomUUID()}`);
    mkdirSync(stubborn.dir, { recursive: true });
    const holdout = spawn('sh', ['-c', 'trap "" TERM; while :; do sleep 1; done'], { cwd: stubborn.dir, detached: true, stdio: 'ignore' });
    children.push(holdout);
    writeFileSync(stubborn.pidFile, `${holdout.pid}\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killed = new Promise((resolve) => holdout.once('exit', (_code, signal) => resolve(signal)));
    sh(stopScript(stubborn, 1, false));
    expect(await killed).toBe('SIGKILL');
  });
});
