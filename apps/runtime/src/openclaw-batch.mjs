// Several `openclaw` CLI commands in ONE process, run by the CLI's own entry (`runCli` of
// `dist/cli/run-main.js`, what the `openclaw` launcher calls): every OpenClaw process costs
// seconds of module loading and schema building, and the runtime's read-back after the installs
// (registry refresh, one inspection per plugin, one `config get` per section) is otherwise one
// process each. Measured: the four commands of a one-plugin prepare 19.5 CPU-s as processes,
// 7.4 CPU-s here (docs/plans/ci-time.md). Plain JavaScript, run by the pinned Node without a loader.
//
//   node openclaw-batch.mjs <run-main.js> '<[["plugins","registry","--refresh","--json"], …]>'
//
// The commands run in order. Each prints one record line on stdout, RECORD_MARK then JSON
// {code, stdout, stderr, ms}: its exit status (process.exit and process.exitCode are caught per
// command), what it printed, its wall time. After the first command that does not exit 0 the
// batch stops: what follows may depend on it (the caller reports those as skipped).
import { pathToFileURL } from 'node:url';

const RECORD_MARK = '\u0000occ-batch-record ';

class ExitRequest {
  constructor(code) {
    this.code = code;
  }
}

const [runMainPath, commandsJson] = process.argv.slice(2);
const { runCli } = await import(pathToFileURL(runMainPath).href);
const commands = JSON.parse(commandsJson);
const stdoutWrite = process.stdout.write.bind(process.stdout);
const stderrWrite = process.stderr.write.bind(process.stderr);
const realExit = process.exit.bind(process);

const STDERR_TAIL_CHARS = 64 * 1024;
const asText = (chunk) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));

for (const args of commands) {
  let stdout = '';
  let stderr = '';
  process.stdout.write = (chunk, ...rest) => {
    stdout += asText(chunk);
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
  stdoutWrite(`${RECORD_MARK}${JSON.stringify({ code, stdout, stderr, ms: Date.now() - started })}\n`);
  if (code !== 0) break;
}
// Open handles of the CLI (timers, watchers) must not keep a finished batch alive.
realExit(0);
