import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { withNetworkOverrides } from '@occ/host-io/network-env';
import { processTempDir } from './process-temp-dir.ts';
import { signalProcessGroup } from '@occ/host-io/process-group';
import type { PinnedToolchain } from './toolchain.ts';

/**
 * How one CLI run ended. Only `exited` is a normal exit; everything else is an ordinary startup
 * failure. `stderr` is the end of what the command printed there (at most 64 KiB), for
 * classifying a failure (install-failure.ts); it is never published.
 */
export type CliOutcome =
  | { kind: 'exited'; code: number; stdout: string; stderr: string }
  | { kind: 'timeout'; stderr: string }
  | { kind: 'signal'; signal: string; stderr: string }
  /** The session's process ended with `code` before it answered this command (it could not load OpenClaw, or died between commands). */
  | { kind: 'no-answer'; code: number; stderr: string }
  | { kind: 'spawn-error' }
  | { kind: 'output-too-large' }
  | { kind: 'aborted' }
  /** Not run: an earlier command of the same batch failed (openclaw-batch.ts). */
  | { kind: 'skipped' };

export interface CliRunOptions {
  timeoutMs: number;
  /** Copy the command's stdout to the runtime's stdout (JSON answers are only captured). */
  echoStdout?: boolean;
  signal?: AbortSignal;
  /** Added to the CLI's environment for this command only (a gateway token: never argv, which other processes can list). */
  env?: Record<string, string>;
}

/** The most a command may print on stdout before it is stopped (`output-too-large`). */
export const MAX_STDOUT_BYTES = 8 * 1024 * 1024;
/** How much of a command's stderr is kept for classifying its failure. */
export const STDERR_TAIL_BYTES = 64 * 1024;
/** SIGTERM, then SIGKILL of the whole process group after this long. */
export const KILL_GRACE_MS = 5_000;

/**
 * The environment of every OpenClaw process, built from nothing: the pinned Node first on PATH,
 * the Agent's state, the revision's config file, and the embedding switches from OpenClaw's
 * "Embedding OpenClaw" guide (no update checks or self-updates of the pinned release, no
 * respawned child so the pid we hold is the process, no LAN advertising). The runtime supervises
 * the gateway (OPENCLAW_SUPERVISOR_MODE=external, OpenClaw's "External supervisors"): no native
 * service or self-update, and a failed gateway start only ends it — unsupervised, OpenClaw answers
 * one with "automatic triage", a repair agent run on the Agent's own model that nobody governs
 * (docs/security.md). The runtime's network
 * settings (CA, proxy, npm registry: `@occ/host-io/network-env`) pass on: npm installs plugins through them,
 * and plugins and model providers in the gateway make HTTPS calls through them.
 */
export function openclawEnvironment(input: {
  toolchain: PinnedToolchain;
  path: string;
  home: string;
  lang: string;
  /** Where OpenClaw and npm write temp files (the Agent's own temp directory); omitted: the system's. */
  tmpDir?: string | null;
  stateDir: string;
  configPath: string;
  npmRegistry: string | null;
  /** The runtime's allowlisted network variables (RuntimeEnvironment.network). */
  network: Readonly<Record<string, string>>;
}): Record<string, string> {
  return {
    ...withNetworkOverrides(input.network, { npmRegistry: input.npmRegistry }),
    PATH: `${input.toolchain.nodeBinDir}:${input.path}`,
    HOME: input.home,
    LANG: input.lang,
    ...(input.tmpDir ? { TMPDIR: input.tmpDir } : {}),
    OPENCLAW_STATE_DIR: input.stateDir,
    OPENCLAW_CONFIG_PATH: input.configPath,
    OPENCLAW_NO_AUTO_UPDATE: '1',
    OPENCLAW_NO_RESPAWN: '1',
    OPENCLAW_DISABLE_BONJOUR: '1',
    OPENCLAW_SUPERVISOR_MODE: 'external',
    OPENCLAW_EXEC_SHELL_SNAPSHOT: '0',
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // A registry that refuses connections is reported in seconds with npm's own code, not after
    // npm's default minute of retries per request; the worker retries the whole startup anyway.
    npm_config_fetch_retries: '1',
    npm_config_fetch_retry_mintimeout: '2000',
    npm_config_fetch_retry_maxtimeout: '5000',
  };
}

/** `node <openclaw.mjs> …args` with the pinned toolchain. */
export class OpenClawCli {
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly toolchain: PinnedToolchain,
    readonly env: Record<string, string>,
  ) {}

  /** The argv of a CLI command (also used to start the gateway). */
  argv(args: readonly string[]): { command: string; args: string[] } {
    return { command: this.toolchain.nodeBinary, args: [this.toolchain.openclawEntry, ...args] };
  }

  /**
   * Runs one command in its own process group (a timeout or shutdown stops npm and every other
   * grandchild too). stderr is passed on to the runtime's stderr as it comes and its tail kept;
   * stdout is captured.
   */
  run(args: readonly string[], options: CliRunOptions): Promise<CliOutcome> {
    const { command, args: argv } = this.argv(args);
    return this.spawnCaptured(command, argv, options);
  }

  /** `node <script> …args` with the pinned Node and the same environment and limits as a CLI command (a script of this runtime that loads OpenClaw's public modules). */
  runScript(script: string, args: readonly string[], options: CliRunOptions): Promise<CliOutcome> {
    return this.spawnCaptured(this.toolchain.nodeBinary, [script, ...args], options);
  }

  private spawnCaptured(command: string, argv: string[], options: CliRunOptions): Promise<CliOutcome> {
    return new Promise((resolve) => {
      if (options.signal?.aborted) return resolve({ kind: 'aborted' });
      const child = this.spawnTracked(command, argv, options.env ?? {}, ['ignore', 'pipe', 'pipe']);
      if (child === null) return resolve({ kind: 'spawn-error' });
      const chunks: Buffer[] = [];
      let size = 0;
      let ending: CliOutcome['kind'] | null = null;
      const stop = (why: 'timeout' | 'output-too-large' | 'aborted') => {
        if (ending !== null) return;
        ending = why;
        signalProcessGroup(child.pid, 'SIGTERM');
        setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
      };
      const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
      const onAbort = () => stop('aborted');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout!.on('data', (chunk: Buffer) => {
        if (options.echoStdout) process.stdout.write(chunk);
        size += chunk.length;
        if (size > MAX_STDOUT_BYTES) return stop('output-too-large');
        chunks.push(chunk);
      });
      let stderrTail = Buffer.alloc(0);
      child.stderr!.on('data', (chunk: Buffer) => {
        process.stderr.write(chunk);
        stderrTail = Buffer.concat([stderrTail, chunk]);
        if (stderrTail.length > STDERR_TAIL_BYTES) stderrTail = stderrTail.subarray(stderrTail.length - STDERR_TAIL_BYTES);
      });
      const stderr = () => stderrTail.toString('utf8');
      const finish = (outcome: CliOutcome) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      child.once('error', () => finish({ kind: 'spawn-error' }));
      child.once('close', (code, signal) => {
        const stdout = () => Buffer.concat(chunks).toString('utf8');
        if (ending === 'timeout') return finish({ kind: 'timeout', stderr: stderr() });
        if (ending === 'output-too-large' || ending === 'aborted') return finish({ kind: ending });
        if (code === null) return finish({ kind: 'signal', signal: signal ?? 'unknown', stderr: stderr() });
        finish({ kind: 'exited', code, stdout: stdout(), stderr: stderr() });
      });
    });
  }

  /**
   * `node <script> …args` kept running across commands (openclaw-session.ts): the same
   * environment, its own process group and temp directory (removed once it has exited), a pipe
   * on fd 3 for the commands (`child.stdio[3]`); stopped by stopAll like any command. Null when
   * it cannot be spawned.
   */
  spawnLongLived(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): ChildProcess | null {
    // stdin stays empty as for any CLI command; the commands come through a pipe on fd 3.
    return this.spawnTracked(this.toolchain.nodeBinary, [script, ...args], env, ['ignore', 'pipe', 'pipe', 'pipe']);
  }

  /**
   * One process of this runtime's OpenClaw: its own process group (so a stop reaches npm and every
   * other grandchild) and temp directory, tracked for stopAll until it has exited, when the temp
   * directory goes. Null when it cannot be spawned.
   */
  private spawnTracked(command: string, argv: readonly string[], env: Record<string, string>, stdio: StdioOptions): ChildProcess | null {
    let temp: ReturnType<typeof processTempDir> | null = null;
    let child: ChildProcess;
    try {
      temp = processTempDir(this.env);
      child = spawn(command, argv, { env: { ...this.env, ...env, ...temp.env }, stdio, detached: true });
    } catch {
      temp?.remove();
      return null;
    }
    this.running.add(child);
    const done = () => {
      this.running.delete(child);
      temp.remove();
    };
    child.once('error', done);
    child.once('close', done);
    return child;
  }

  /**
   * Stops every command still running (runtime shutdown): SIGTERM first, so a command holding
   * OpenClaw's plugin lifecycle lease (a row in the Agent's state that names no process and
   * lasts 300 s) releases it as it exits and the Agent's next start does not wait it out; then
   * SIGKILL of every group after KILL_GRACE_MS (npm may outlive its leader).
   */
  async stopAll(): Promise<void> {
    const children = [...this.running];
    for (const child of children) signalProcessGroup(child.pid, 'SIGTERM');
    const closed = children.map((child) => new Promise((resolve) => child.once('close', resolve)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, KILL_GRACE_MS)))]);
    clearTimeout(timer);
    for (const child of children) signalProcessGroup(child.pid, 'SIGKILL');
  }
}

/** Parses a `--json` answer; anything but one JSON value on stdout is malformed output. */
export function parseJsonOutput(stdout: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(stdout) };
  } catch {
    return { ok: false };
  }
}
