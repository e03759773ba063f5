import type { ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { signalProcessGroup } from '@occ/host-io/process-group';
import { BATCH_SCRIPT, parseBatchRecord, RECORD_MARK, type BatchedOutcome } from './openclaw-batch.ts';
import { logEvent } from './log.ts';
import { KILL_GRACE_MS, MAX_STDOUT_BYTES, STDERR_TAIL_BYTES, type CliRunOptions, type OpenClawCli } from './openclaw-cli.ts';

/**
 * A command of the session runs in the session's environment. `processEnv`: variables the process
 * must have been started with (the Codex harness's offline npm cache): an open process that was not
 * is let go first. A command without them runs in whichever process is open.
 */
export type SessionRunOptions = Omit<CliRunOptions, 'env'> & { processEnv?: Readonly<Record<string, string>> };

/**
 * The longest record line accepted: a command's stdout is capped at MAX_STDOUT_BYTES by the batch
 * itself, and JSON may write a character as six (`\u0000`); stderr's tail besides.
 */
const MAX_RECORD_CHARS = 6 * (MAX_STDOUT_BYTES + STDERR_TAIL_BYTES) + 1024;

/**
 * Consecutive `openclaw` commands of one prepare in ONE OpenClaw process (openclaw-batch.mjs): the
 * installs, the registry refresh, the inspections and config reads, the removal of stale plugins.
 * Each command is sent when the one before has been judged, so the runtime can rewrite the
 * revision's config in between (the process reloads it per command). A command that fails, times
 * out or is aborted ends the process, and the next command starts a fresh one once it has gone.
 * `end` lets the process exit. The runtime ends it before any other OpenClaw process of its own
 * (another CLI command, the gateway) starts (CliCommands, prepare.ts, main.ts), so no command here
 * sees state this runtime changed behind its back.
 */
export class OpenClawSession {
  private child: ChildProcess | null = null;
  /** The variables `child` was started with besides the CLI's own. */
  private childEnv: Readonly<Record<string, string>> = {};
  /** Resolves once the last process this session let go has exited (none: resolved). */
  private gone: Promise<void> = Promise.resolve();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cli: Pick<OpenClawCli, 'spawnLongLived'>,
    /** The CLI's entry and OpenClaw's public config-snapshot module (PinnedToolchain). */
    private readonly modules: { openclawRunMain: string; openclawConfigSnapshot: string },
  ) {}

  /** One command, as `cli.run` would run it alone; `timeoutMs` and `signal` apply to this command. */
  run(args: readonly string[], options: SessionRunOptions): Promise<BatchedOutcome> {
    return this.enqueue(() => this.runNow(args, options));
  }

  /**
   * After the commands already asked for: lets the process exit (its command pipe ends) and
   * resolves once it has (it holds the Agent's state database open until then). The next command
   * starts another.
   */
  end(): Promise<void> {
    return this.enqueue(async () => {
      if (this.child !== null) this.forget(this.child);
      await this.gone;
    });
  }

  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(args: readonly string[], options: SessionRunOptions): Promise<BatchedOutcome> {
    if (options.signal?.aborted) return { outcome: { kind: 'aborted' }, ms: 0 };
    const wanted = options.processEnv ?? {};
    if (this.child !== null && Object.entries(wanted).some(([name, value]) => this.childEnv[name] !== value)) this.forget(this.child);
    // A process that failed is still exiting: never two of this session's processes at once.
    if (this.child === null) await this.gone;
    const child = this.child ?? this.open(wanted);
    const commands = child === null ? null : commandPipe(child);
    if (child === null || commands === null || child.stdout === null) return { outcome: { kind: 'spawn-error' }, ms: 0 };
    const { stdout } = child;
    return new Promise((resolve) => {
      let pending = '';
      let ending: 'timeout' | 'output-too-large' | 'aborted' | null = null;
      let stderrTail = '';
      let answered: ReturnType<typeof parseBatchRecord> = null;
      let done = false;
      const stop = (why: 'timeout' | 'output-too-large' | 'aborted') => {
        if (ending !== null) return;
        ending = why;
        this.forget(child);
        signalProcessGroup(child.pid, 'SIGTERM');
        setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
      };
      const onStdout = (chunk: string) => {
        if (ending !== null || answered !== null) return; // after the stop or the answer: not this command's record
        pending += chunk;
        for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          // The mark starts a line of its own (the batch writes a newline first); what precedes it is stray output.
          const mark = line.indexOf(RECORD_MARK);
          const record = mark === -1 ? null : parseBatchRecord(line.slice(mark));
          if (record === null) continue;
          if (record.code !== 0 || record.tooLarge) this.forget(child);
          answered = record;
          // stderr is another pipe: what the command wrote there before its record is read in this same turn of the
          // event loop, so the answer is given right after it.
          setImmediate(answer);
          return;
        }
        if (pending.length > MAX_RECORD_CHARS) stop('output-too-large');
      };
      // The tail since this command began is what a failure is classified by (install-failure.ts).
      const onStderr = (chunk: string) => {
        stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
      };
      const answer = () => {
        if (answered === null) return;
        if (answered.tooLarge) return finish({ outcome: { kind: 'output-too-large' }, ms: answered.ms });
        if (options.echoStdout) process.stdout.write(answered.stdout);
        // Everything the process wrote to stderr since the command began (its children's too), as a process of its own would have it.
        finish({ outcome: { kind: 'exited', code: answered.code, stdout: answered.stdout, stderr: stderrTail }, ms: answered.ms });
      };
      const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
        if (answered !== null) return answer();
        if (ending === 'timeout') return finish({ outcome: { kind: 'timeout', stderr: stderrTail }, ms: 0 });
        if (ending !== null) return finish({ outcome: { kind: ending }, ms: 0 });
        if (code === null) return finish({ outcome: { kind: 'signal', signal: signal ?? 'unknown', stderr: stderrTail }, ms: 0 });
        // Ended without this command's record (it could not load OpenClaw, or died between commands): no answer, whatever its status.
        finish({ outcome: { kind: 'no-answer', code, stderr: stderrTail }, ms: 0 });
      };
      const onError = () => finish({ outcome: { kind: 'spawn-error' }, ms: 0 });
      const onAbort = () => stop('aborted');
      const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
      const finish = (result: BatchedOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        stdout.off('data', onStdout);
        child.stderr?.off('data', onStderr);
        child.off('close', onClose);
        child.off('error', onError);
        resolve(result);
      };
      stdout.on('data', onStdout);
      child.stderr?.on('data', onStderr);
      child.once('close', onClose);
      child.once('error', onError);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      commands.write(`${JSON.stringify(args)}\n`);
    });
  }

  private open(env: Readonly<Record<string, string>>): ChildProcess | null {
    const child = this.cli.spawnLongLived(BATCH_SCRIPT, [this.modules.openclawRunMain, this.modules.openclawConfigSnapshot, String(MAX_STDOUT_BYTES)], env);
    if (child === null) return null;
    this.child = child;
    this.childEnv = env;
    // Each is a cold OpenClaw load (seconds of CPU): the log says how many a start paid for.
    logEvent('openclaw.session.started', { pid: child.pid ?? null, processEnv: Object.keys(env).sort() });
    this.gone = new Promise((resolve) => {
      child.once('close', () => resolve());
      child.once('error', () => resolve());
    });
    // Decoded as a stream: a character split across two reads stays one character.
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    // stderr reaches the runtime's log as it comes, between commands too, as a process of its own would.
    child.stderr?.on('data', (chunk: string) => process.stderr.write(chunk));
    // A process that has gone answers through 'close'; a broken pipe is not an error of its own.
    commandPipe(child)?.on('error', () => undefined);
    child.once('close', () => this.forget(child));
    // A process that could not be started may say so only through 'error'.
    child.once('error', () => this.forget(child));
    return child;
  }

  /** This process takes no more commands (it failed, was stopped or is let go). */
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
