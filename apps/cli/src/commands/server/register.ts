import type { Command } from 'commander';
import { loadTypeScript } from '../../load-typescript.ts';

/**
 * `occ up` and `occ worker` run the server itself. They keep their own flags and are loaded only
 * when run, so no other command loads controller code.
 */
export function registerServerCommands(program: Command): void {
  const passThrough = (name: string, summary: string, load: () => Promise<(argv: string[]) => Promise<number>>) =>
    program
      .command(name)
      .summary(summary)
      .description(`${summary} Run \`occ ${name} --help\` for its flags.`)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument('[flags...]')
      .action(async (_flags: string[], _options: unknown, command: Command) => {
        await loadTypeScript();
        const run = await load();
        const code = await run(command.args);
        if (code !== 0) process.exitCode = code;
      });
  passThrough('up', 'Start the OCC controller (embedded PGlite by default) and write a context for it.', async () => (await import('./up.ts')).up);
  passThrough('worker', 'Run a reconcile worker against the PostgreSQL at DATABASE_URL.', async () => (await import('./worker.ts')).worker);
}
