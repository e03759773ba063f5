import { up } from './commands/up.ts';
import { worker } from './commands/worker.ts';

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = { up, worker };

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    console.error(`usage: occ <${Object.keys(COMMANDS).join('|')}> [--help]`);
    return command ? 2 : 0;
  }
  try {
    return await run(rest);
  } catch (error) {
    console.error(`occ ${command}: ${(error as Error).message}`);
    return 1;
  }
}
