// Several `openclaw` CLI commands in ONE process, run by the CLI's own entry (`runCli` of
// `dist/cli/run-main.js`, what the `openclaw` launcher calls): every OpenClaw process costs
// seconds of module loading and schema building, and a prepare runs one command after another
// (each install, the registry refresh, one inspection per plugin, one `config get` per section).
// Measured: the four read-back commands of a one-plugin prepare 19.5 CPU-s as processes, 7.4
// CPU-s here; an install and the refresh 19.6 s as two processes, 12.3 s here
// (docs/plans/fast-rollouts.md). Plain JavaScript, run by the pinned Node without a loader.
//
//   node openclaw-batch.mjs <run-main.js> <plugin-sdk/runtime-config-snapshot.js> <max stdout chars>
//
// Commands arrive on file descriptor 3 (a pipe from the runtime; stdin stays empty, as it is for a
// CLI process of its own, and the CLI is free to pause or release it), one JSON array of
// `openclaw` arguments per line, and run in order as
// they come (the runtime writes the next once it has judged the last, and may change the
// revision's config file in between). Each prints one record line on stdout, RECORD_MARK then
// JSON {code, stdout, stderr, ms, tooLarge?}: its exit status (process.exit and process.exitCode
// are caught per command), what it printed (at most the given number of characters: beyond that
// the record says `tooLarge` instead), its wall time. After a command that does not exit 0, or
// printed too much, the process ends: what follows must not run on whatever state the failure
// left in memory. It also ends when the pipe does.
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const RECORD_MARK = '\u0000occ-batch-record ';

class ExitRequest {
  constructor(code) {
    this.code = code;
  }
}

const [runMainPath, configSnapshotPath, maxStdout] = process.argv.slice(2);
const MAX_STDOUT_CHARS = Number(maxStdout);
const { runCli } = await import(pathToFileURL(runMainPath).href);
// OpenClaw keeps the configuration it loaded for the rest of the process (its "runtime snapshot"):
// cleared before each command, which then reads the file as a process of its own would.
const { clearRuntimeConfigSnapshot, clearConfigCache } = await import(pathToFileURL(configSnapshotPath).href);
const stdoutWrite = process.stdout.write.bind(process.stdout);
const stderrWrite = process.stderr.write.bind(process.stderr);
const realExit = process.exit.bind(process);
// A stop (SIGTERM from the runtime) ends the process through exit, as the `openclaw` launcher's
// own handling does: OpenClaw releases on exit what it holds, above all its plugin lifecycle lease
// (a row in the Agent's state that names no process and lasts 300 s, so a killed holder makes the
// Agent's next start wait it out). Without a handler Node would die of the signal, running none.
process.once('SIGTERM', () => realExit(143));

const STDERR_TAIL_CHARS = 64 * 1024;
const asText = (chunk) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));

async function runOne(args) {
  let stdout = '';
  let stderr = '';
  let tooLarge = false;
  process.stdout.write = (chunk, ...rest) => {
    if (!tooLarge) stdout += asText(chunk);
    if (stdout.length > MAX_STDOUT_CHARS) {
      tooLarge = true;
      stdout = '';
    }
    rest.find((arg) => typeof arg === 'function')?.();
    return true;
  };
  // stderr still reaches the runtime's log, as a separate process's would.
  process.stderr.write = (chunk, ...rest) => {
    stderr = (stderr + asText(chunk)).slice(-STDERR_TAIL_CHARS);
    return stderrWrite(chunk, ...rest);
  };
  process.exit = (code) => {
    throw new ExitRequest(code ?? process.exitCode ?? 0);
  };
  process.exitCode = undefined;
  const started = Date.now();
  let code;
  try {
    clearRuntimeConfigSnapshot();
    clearConfigCache();
    await runCli(['node', 'openclaw', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof ExitRequest) code = Number(error.code);
    else {
      stderr += `${error instanceof Error ? error.message : String(error)}\n`;
      code = 1;
    }
  }
  process.stdout.write = stdoutWrite;
  process.stderr.write = stderrWrite;
  process.exit = realExit;
  process.exitCode = undefined;
  // A newline first: output the command left without one (a write that landed after it returned) stays off the record's line.
  stdoutWrite(`\n${RECORD_MARK}${JSON.stringify({ code, stdout, stderr, ms: Date.now() - started, ...(tooLarge ? { tooLarge } : {}) })}\n`);
  return tooLarge ? 1 : code;
}

const commandPipe = new Socket({ fd: 3, readable: true, writable: false });
for await (const line of createInterface({ input: commandPipe, crlfDelay: Number.POSITIVE_INFINITY })) {
  if (line.trim() === '') continue;
  let args;
  try {
    args = JSON.parse(line);
  } catch {
    args = null;
  }
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
    stdoutWrite(`\n${RECORD_MARK}${JSON.stringify({ code: 2, stdout: '', stderr: 'not a command line\n', ms: 0 })}\n`);
    realExit(2);
  }
  if ((await runOne(args)) !== 0) realExit(1);
}
// Open handles of the CLI (timers, watchers) must not keep a finished batch alive.
realExit(0);
