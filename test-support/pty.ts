import { spawn } from 'node:child_process';

export interface PtyResult {
  code: number | null;
  /** Everything the terminal received, escape sequences included (CRLF line ends). */
  output: string;
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Runs a command on a real pseudo-terminal, through util-linux `script` (no native module): the
 * command sees a TTY on stdin, stdout and stderr, as in a person's terminal. `-e` returns the
 * command's exit code; the typescript file is /dev/null, so nothing is written to disk.
 */
export interface PtySession {
  /** Everything the terminal showed so far. */
  output(): string;
  /** Types on the terminal (`\r` is Enter, `\u0004` Ctrl-D, `\u0003` Ctrl-C). */
  type(text: string): void;
}

export function runInPty(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { timeoutMs?: number; columns?: number; interact?: (session: PtySession) => Promise<void> } = {},
): Promise<PtyResult> {
  const sized = `stty cols ${options.columns ?? 100} rows 40; exec ${command.map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', sized, '/dev/null'], { env: { TERM: 'xterm-256color', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command.join(' ')} did not finish on its terminal:\n${output}`));
    }, options.timeoutMs ?? 300_000);
    child.on('error', reject);
    // A person at the terminal: what they type goes to it through `script`.
    if (options.interact) void options.interact({ output: () => output, type: (text) => void child.stdin.write(text) }).catch(reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
