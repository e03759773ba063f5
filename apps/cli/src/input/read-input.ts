import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CliError, EXIT } from '../exit-codes.ts';
import { describeSyntaxError } from './yaml-error.ts';

/** All of standard input as text (a key or a Secret piped in, or a resource file with `-f -`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A secret value from exactly one source — standard input, a file or an environment variable —
 * never from an argument (it would show in `ps` and shell history). One trailing newline is
 * dropped: `echo "$TOKEN" | occ …` must not store it.
 */
export async function readSecretValue(source: { fromFile?: string; fromEnv?: string; stdin?: boolean; what?: string }, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const chosen = [source.fromFile, source.fromEnv, source.stdin ? 'stdin' : undefined].filter(Boolean);
  if (chosen.length > 1) throw new CliError('Give the value one way: --from-stdin, --from-file or --from-env', EXIT.USAGE);
  let value: string;
  if (source.fromFile) value = readFileText(source.fromFile);
  else if (source.fromEnv) {
    const fromEnv = env[source.fromEnv];
    if (fromEnv === undefined) throw new CliError(`The environment variable ${source.fromEnv} is not set`, EXIT.USAGE);
    value = fromEnv;
  } else {
    if (process.stdin.isTTY) throw new CliError(`Pipe the ${source.what ?? 'value'} on standard input, or use --from-file or --from-env (never an argument)`, EXIT.USAGE);
    value = await readStdin();
  }
  value = value.replace(/\r?\n$/, '');
  if (value.length === 0) throw new CliError(`The ${source.what ?? 'value'} is empty`, EXIT.USAGE);
  return value;
}

/** A file's text; a file that cannot be read is a usage error naming it and why (ENOENT, EACCES …). */
export function readFileText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, EXIT.USAGE);
  }
}

/** A resource document from `-f FILE` (JSON or YAML; `-` = standard input). */
export async function readResourceFile(path: string): Promise<Record<string, unknown>> {
  const text = path === '-' ? await readStdin() : readFileText(path);
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new CliError(describeSyntaxError(path, error), EXIT.USAGE);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError(`${path} must hold one object (a mapping)`, EXIT.USAGE);
  return parsed as Record<string, unknown>;
}
