import { CommanderError } from 'commander';
import { describeError, EXIT, exitCodeOf } from './exit-codes.ts';
import { buildProgram } from './program.ts';

/** Runs `occ` with these arguments; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; anything commander refuses (it already printed why) is a usage error.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    process.stderr.write(`${describeError(error)}\n`);
    return exitCodeOf(error);
  }
}
