import { spawn } from 'node:child_process';
import { CliError, EXIT } from '../exit-codes.ts';

/** The editor a person chose: `$VISUAL`, else `$EDITOR`, else `vi` (as git and kubectl pick it). */
export function chosenEditor(env: NodeJS.ProcessEnv = process.env): { command: string; chosen: boolean } {
  const chosen = [env.VISUAL, env.EDITOR].find((value) => value !== undefined && value.trim() !== '');
  return { command: chosen?.trim() ?? 'vi', chosen: chosen !== undefined };
}

/**
 * Runs the editor on `path` and waits for it to exit. The command goes through `sh -c` as git
 * runs it, so `EDITOR="code --wait"` works; the path is passed as `$1`, never spliced into the
 * command. Ctrl-C and Ctrl-\ belong to the editor meanwhile (occ ignores them, as git does). An
 * editor that fails or is not found is a CliError saying so.
 */
export async function runEditor(path: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { command } = chosenEditor(env);
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGQUIT', ignore);
  try {
    const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: NodeJS.ErrnoException }>((resolve) => {
      const child = spawn('sh', ['-c', `${command} "$1"`, command, path], { stdio: 'inherit', env });
      child.on('error', (error) => resolve({ error }));
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    if ('error' in outcome) throw new CliError(`Cannot run the editor ${command}: ${outcome.error.code ?? outcome.error.message}`, EXIT.ERROR);
    if (outcome.code === 127) throw new CliError(`The editor ${command} was not found: set VISUAL or EDITOR`, EXIT.USAGE);
    if (outcome.code !== 0) throw new CliError(`The editor ${command} exited with ${outcome.signal ? `signal ${outcome.signal}` : `code ${outcome.code}`}`, EXIT.ERROR);
  } finally {
    process.off('SIGINT', ignore);
    process.off('SIGQUIT', ignore);
  }
}
