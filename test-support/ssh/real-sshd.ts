// A real OpenSSH server for the ssh ComputeDriver's tests: Debian's /usr/sbin/sshd on a loopback
// port, with a throwaway host key and a throwaway Unix user whose home is in the fixture's temp dir.
// Never a fake: what the driver must survive (host key pinning, StrictModes, several channels on
// one connection, a host that vanishes mid-deploy, a detached process outliving its session) is
// real sshd behaviour. Each call makes its own user, keys, port and process, so test files may run
// several at once. Needs root (useradd, sshd).
import { freeLoopbackPort } from '../../apps/runtime/src/free-port.ts';
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const SSHD = '/usr/sbin/sshd';
const run = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RealSshd {
  host: '127.0.0.1';
  port: number;
  /** The throwaway user, occssh-<8 hex>. */
  user: string;
  uid: number;
  gid: number;
  /** The user's home (inside the fixture's temp dir), owned by the user, mode 0700. */
  home: string;
  /** The host key's public line, "ssh-ed25519 AAAA…" (no comment). */
  hostPublicKey: string;
  /** A different, freshly generated ed25519 public key line, for "wrong pinned host key" tests. */
  otherHostPublicKey: string;
  /** An ed25519 private key (no passphrase, owned by root, 0600) whose public key is in the user's authorized_keys. */
  clientKeyPath: string;
  /** sshd's own log so far (-D -e, LogLevel VERBOSE), across restarts; read at the call, so a test that blocked on execFileSync sees it all. */
  log(): string;
  /** How many logins were accepted so far ("Accepted publickey" lines in the log). */
  acceptedLogins(): number;
  /** The argv (joined with spaces) of every process running now as the user, its session's "sshd: user@notty" included. */
  processesOfUser(): string[];
  /** SIGKILL the sshd listener and its session processes (a host going away), but not the user's other processes. */
  kill(): Promise<void>;
  /** Start sshd again on the same port, config and keys (after kill); resolves when the port accepts TCP. */
  restart(): Promise<void>;
  /** Stop sshd, kill the user's processes, delete the user, remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** useradd/usermod/userdel fail at once while another one holds the lock on /etc/passwd (a parallel test file): try again. */
async function accountTool(args: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run(args[0]!, args.slice(1));
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      if (attempt >= 50 || !/lock/i.test(stderr)) throw new Error(`${args.join(' ')} failed: ${stderr.trim() || error}`);
      await sleep(50 + Math.random() * 100);
    }
  }
}

/** The public line of an ssh-keygen .pub file without its comment (the comment is root@<this host>). */
function publicLine(pubPath: string): string {
  const [type, key] = readFileSync(pubPath, 'utf8').trim().split(/\s+/);
  return `${type} ${key}`;
}

function keygen(path: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', '', '-f', path], { stdio: 'pipe' });
}

/** /proc/<pid>/status, or undefined once the process is gone. */
function statusOf(pid: number | string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
}

/** A killed process stays a zombie until its parent (or, orphaned, init) reaps it: it runs no more. */
const isRunning = (status: string | undefined) => status !== undefined && !/^State:\s+Z/m.test(status);

/** The argv of every running process whose real uid is `uid` ([name] for one without argv). */
function processesOf(uid: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = statusOf(entry);
    if (!isRunning(status) || Number(/^Uid:\s+(\d+)/m.exec(status!)?.[1]) !== uid) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push(argv || `[${/^Name:\s+(.*)$/m.exec(status!)?.[1]}]`);
    } catch {
      // The process ended while we read it.
    }
  }
  return found;
}

/** The pids of `root`'s descendants (children, their children, …). */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(statusOf(entry) ?? '')?.[1]);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) for (const child of children.get(queue.shift()!) ?? []) found.push(child), queue.push(child);
  return found;
}

function isSshd(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sshd:') || readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sshd';
  } catch {
    return false;
  }
}

function killQuietly(pid: number | undefined): void {
  if (!pid || pid <= 0) return; // never 0 or -1: that would signal our own process group, or everything
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function sshdConfig(dir: string, port: number, user: string): string {
  return [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'AuthorizedKeysFile .ssh/authorized_keys',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'PermitRootLogin no',
    `AllowUsers ${user}`,
    'AllowTcpForwarding local',
    'X11Forwarding no',
    'PermitTunnel no',
    'Subsystem sftp internal-sftp',
    'LogLevel VERBOSE',
    'StrictModes yes',
    // The driver opens several channels and connections at once; the defaults (10:30:100, 10) throttle them.
    'MaxStartups 100:30:200',
    'MaxSessions 50',
    '',
  ].join('\n');
}

/**
 * A real sshd on a free loopback port, accepting only a new throwaway user by public key.
 * Call stop() when done (an exit hook deletes the user if a test process dies first).
 */
export async function startRealSshd(): Promise<RealSshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: install openssh-server (apt-get install openssh-server)`);
  // sshd refuses to start without its privilege-separation directory, which only the package's service unit creates.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const dir = mkdtempSync(join(tmpdir(), 'occ-sshd-'));
  chmodSync(dir, 0o755); // the user must traverse it to reach its home
  const user = `occssh-${randomBytes(4).toString('hex')}`;
  const home = join(dir, 'home');
  const config = join(dir, 'sshd_config');
  const logFile = join(dir, 'sshd.log');
  let userMade = false;
  let sshd: ChildProcess | undefined;
  let lastLog = '';
  // sshd writes straight into a file, not a pipe the event loop must drain: the log is current even
  // while the test's thread was blocked (an execFileSync'd ssh client, say).
  const log = () => (existsSync(logFile) ? (lastLog = readFileSync(logFile, 'utf8')) : lastLog);
  let stopped = false;

  /** The listener and its session processes, while the listener runs (once it is gone, its pid may be another's). */
  const sshdProcesses = () => (sshd?.pid && sshd.exitCode === null && sshd.signalCode === null ? [sshd.pid, ...descendantsOf(sshd.pid).filter(isSshd)] : []);

  const stopSync = () => {
    for (const pid of sshdProcesses()) killQuietly(pid);
    if (userMade) {
      for (const command of [
        ['pkill', '-KILL', '-u', user],
        ['userdel', '--remove', user],
      ]) {
        try {
          execFileSync(command[0]!, command.slice(1), { stdio: 'ignore' });
        } catch {
          // Best effort on the way out.
        }
      }
    }
    log(); // keep its last words for a test that reads the log after stop()
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => stopped || stopSync();
  process.once('exit', onExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    for (const pid of sshdProcesses()) killQuietly(pid);
    if (userMade) {
      // userdel refuses while a process of the user lives; pkill's SIGKILL is delivered, but the process may take a moment to go.
      for (let attempt = 1; ; attempt++) {
        await run('pkill', ['-KILL', '-u', user]).catch(() => undefined);
        try {
          await accountTool(['userdel', '--remove', user]);
          break;
        } catch (error) {
          if (attempt >= 40) throw error;
          await sleep(50);
        }
      }
    }
    log(); // keep its last words for a test that reads the log after stop()
    rmSync(dir, { recursive: true, force: true });
  };

  /** Spawn sshd on `port`; resolves once it listens and accepts TCP, else rejects with its log. */
  const launch = async (port: number): Promise<void> => {
    writeFileSync(config, sshdConfig(dir, port, user));
    const startedAt = log().length;
    const fd = openSync(logFile, 'a');
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    sshd = child;
    let exited = false;
    let spawnError = '';
    child.once('exit', () => (exited = true));
    child.once('error', (error) => ((exited = true), (spawnError = `spawn failed: ${error.message}\n`)));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const sinceLaunch = log().slice(startedAt) + spawnError;
      if (exited || sinceLaunch.includes('Address already in use')) {
        killQuietly(child.pid);
        throw new Error(`sshd did not start on port ${port}:\n${sinceLaunch}`);
      }
      // The log line first: a bare TCP connect could reach another test's listener that took the port.
      if (sinceLaunch.includes(`Server listening on 127.0.0.1 port ${port}`) && (await connects(port))) return;
      if (Date.now() > deadline) {
        killQuietly(child.pid);
        throw new Error(`sshd did not accept TCP on port ${port} within 10 s:\n${sinceLaunch}`);
      }
      await sleep(50);
    }
  };

  try {
    keygen(join(dir, 'host_key'));
    keygen(join(dir, 'other_host_key'));
    keygen(join(dir, 'client_key'));

    await accountTool(['useradd', '--home-dir', home, '--create-home', '--shell', '/bin/sh', '--user-group', user]);
    userMade = true;
    // useradd leaves the password '!' (locked), and with UsePAM no sshd refuses a locked account even for
    // a public key; '*' means "no password" without locking.
    await accountTool(['usermod', '-p', '*', user]);
    const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', user]).toString().trim());

    // StrictModes: home and ~/.ssh 0700, authorized_keys 0600, all owned by the user.
    const sshDir = join(home, '.ssh');
    const authorizedKeys = join(sshDir, 'authorized_keys');
    mkdirSync(sshDir, { recursive: true });
    writeFileSync(authorizedKeys, `${publicLine(join(dir, 'client_key.pub'))}\n`);
    for (const [path, mode] of [
      [home, 0o700],
      [sshDir, 0o700],
      [authorizedKeys, 0o600],
    ] as const) {
      chownSync(path, uid, gid);
      chmodSync(path, mode);
    }

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freeLoopbackPort();
      try {
        await launch(port);
        break;
      } catch (error) {
        // Another process may take the free port before sshd binds it.
        if (attempt >= 5) throw error;
      }
    }

    return {
      host: '127.0.0.1',
      port,
      user,
      uid,
      gid,
      home,
      hostPublicKey: publicLine(join(dir, 'host_key.pub')),
      otherHostPublicKey: publicLine(join(dir, 'other_host_key.pub')),
      clientKeyPath: join(dir, 'client_key'),
      log,
      acceptedLogins: () => log().match(/Accepted publickey/g)?.length ?? 0,
      processesOfUser: () => processesOf(uid),
      async kill() {
        // The session processes ("sshd: user [priv]", "sshd: user@notty") are the listener's descendants; the
        // user's own processes below them are not sshd and stay, like a detached runtime on a host whose sshd died.
        const killed = sshdProcesses();
        for (const pid of killed) killQuietly(pid);
        await run('pkill', ['-KILL', '-f', `^sshd: ${user}`]).catch(() => undefined);
        // SIGKILL is asynchronous: wait until they no longer run, so processesOfUser() right after shows only the user's own.
        const deadline = Date.now() + 5_000;
        while (killed.some((pid) => isRunning(statusOf(pid))) && Date.now() < deadline) await sleep(20);
      },
      restart: () => launch(port),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The ssh ComputeDriver's settings for this sshd (docs/compute-ssh.md, "Settings"), the runtime from the checkout at `workspace`. */
export function sshDriverEnv(sshd: RealSshd, workspace: string, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OCC_SSH_HOST: `127.0.0.1:${sshd.port}`,
    OCC_SSH_USER: sshd.user,
    OCC_SSH_HOST_KEY: sshd.hostPublicKey,
    OCC_SSH_PRIVATE_KEY_FILE: sshd.clientKeyPath,
    OCC_SSH_WORKSPACE: workspace,
    ...overrides,
  };
}
