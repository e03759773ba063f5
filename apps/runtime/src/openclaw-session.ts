import type { ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { signalProcessGroup } from '@occ/host-io/process-group';
import { BATCH_SCRIPT, parseBatchRecord, RECORD_MARK, type BatchedOutcome } from './openclaw-batch.ts';
import { KILL_GRACE_MS, MAX_STDOUT_BYTES, STDERR_TAIL_BYTES, type CliRunOptions, type OpenClawCli } from './openclaw-cli.ts';

/**
 * Consecutive `openclaw` commands of one prepare in ONE OpenClaw process (openclaw-batch.mjs): the
 * installs, the registry refresh, the inspections and config reads, the removal of stale plugins.
 * Each command is sent when the one before has been judged, so the runtime can rewrite the
 * revision's config in between (the process re-reads it per command). A command that fails, times
 * out or is aborted ends the process; the next command starts a fresh one. `end` lets the process
 * exit: nothing else of OpenClaw (another CLI process, the gateway) runs while one is open
 * (CliCommands ends it first), so no command here sees state that changed behind its back.
 */
export class OpenClawSession {
  private child: ChildProcess | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cli: Pick<OpenClawCli, 'spawnLongLived'>,
    /** The CLI's entry and OpenClaw's public config-snapshot module (PinnedToolchain). */
    private readonly modules: { openclawRunMain: string; openclawConfigSnapshot: string },
  ) {}

  /** One command, as `cli.run` would run it alone; `timeoutMs` and `signal` apply to this command. */
  run(args: readonly string[], options: CliRunOptions): Promise<BatchedOutcome> {
    const next = this.queue.then(() => this.runNow(args, options));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Lets the process exit once it has finished (its command pipe ends); resolves when it has (it holds the
   * Agent's state database open until then). The next command starts another.
   */
  end(): Promise<void> {
    const child = this.child;
    if (child === null) return Promise.resolve();
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.forget(child);
    return closed;
  }

  private runNow(args: readonly string[], options: CliRunOptions): Promise<BatchedOutcome> {
    if (options.signal?.aborted) return Promise.resolve({ outcome: { kind: 'aborted' }, ms: 0 });
    const child = this.child ?? this.open();
    const commands = child === null ? null : commandPipe(child);
    if (child === null || commands === null || child.stdout === null || child.stderr === null) return Promise.resolve({ outcome: { kind: 'spawn-error' }, ms: 0 });
    const { stdout, stderr } = child;
    return new Promise((resolve) => {
      let pending = '';
      let ending: 'timeout' | 'output-too-large' | 'aborted' | null = null;
      let stderrTail = '';
      const stop = (why: 'timeout' | 'output-too-large' | 'aborted') => {
        if (ending !== null) return;
        ending = why;
        signalProcessGroup(child.pid, 'SIGTERM');
        setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
      };
      const onStdout = (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          const record = line.startsWith(RECORD_MARK) ? parseBatchRecord(line) : null;
          if (record === null) continue; // stray output, not a record
          if (record.code !== 0) this.forget(child);
          if (options.echoStdout) process.stdout.write(record.stdout);
          return finish({ outcome: { kind: 'exited', code: record.code, stdout: record.stdout, stderr: record.stderr }, ms: record.ms });
        }
        if (pending.length > MAX_STDOUT_BYTES) stop('output-too-large');
      };
      // The tail since this command began is what a failure is classified by.
      const onStderr = (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      };
      const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
        this.forget(child);
        if (ending === 'timeout') return finish({ outcome: { kind: 'timeout', stderr: stderrTail, partialStdout: pending }, ms: 0 });
        if (ending !== null) return finish({ outcome: { kind: ending }, ms: 0 });
        if (code === null) return finish({ outcome: { kind: 'signal', signal: signal ?? 'unknown', stderr: stderrTail, partialStdout: pending }, ms: 0 });
        // Ended without this command's record (it could not load the CLI, or crashed between records): that command failed.
        finish({ outcome: { kind: 'exited', code: code === 0 ? 1 : code, stdout: '', stderr: stderrTail }, ms: 0 });
      };
      const onError = () => {
        this.forget(child);
        finish({ outcome: { kind: 'spawn-error' }, ms: 0 });
      };
      const onAbort = () => stop('aborted');
      const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
      const finish = (result: BatchedOutcome) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        stdout.off('data', onStdout);
        stderr.off('data', onStderr);
        child.off('close', onClose);
        child.off('error', onError);
        resolve(result);
      };
      stdout.on('data', onStdout);
      stderr.on('data', onStderr);
      child.once('close', onClose);
      child.once('error', onError);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      // A process that has already gone answers through onClose; a broken pipe is not an error of its own.
      commands.once('error', () => undefined);
      commands.write(`${JSON.stringify(args)}\n`);
    });
  }

  private open(): ChildProcess | null {
    const child = this.cli.spawnLongLived(BATCH_SCRIPT, [this.modules.openclawRunMain, this.modules.openclawConfigSnapshot]);
    if (child === null) return null;
    this.child = child;
    // stderr reaches the runtime's log as it comes, between commands too, as a process of its own would.
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.once('close', () => this.forget(child));
    return child;
  }

  /** This process takes no more commands (it failed or ended). */
  private forget(child: ChildProcess): void {
    if (this.child === child) {
      commandPipe(child)?.end();
      this.child = null;
    }
  }
}

/** Where the process reads its commands (fd 3, openclaw-batch.mjs). */
function commandPipe(child: ChildProcess): Writable | null {
  const pipe = child.stdio[3];
  return pipe instanceof Writable ? pipe : null;
}
