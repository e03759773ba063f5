import { fileURLToPath } from 'node:url';
import type { CliOutcome } from './openclaw-cli.ts';

/** The read-back commands the runtime runs together in one OpenClaw process (openclaw-session.ts). */
export type ReadCommand = { command: 'refreshRegistry' } | { command: 'inspect'; pluginId: string } | { command: 'configGet'; section: string };

/** One command's outcome in a batch, and how long it ran (its step's time in the startup progress). */
export interface BatchedOutcome {
  outcome: CliOutcome;
  ms: number;
}

/** The script that runs a batch with the CLI's own entry, one module load for all its commands. */
export const BATCH_SCRIPT = fileURLToPath(new URL('./openclaw-batch.mjs', import.meta.url));

/** What the batch prints before each command's record (openclaw-batch.mjs). */
export const RECORD_MARK = '\u0000occ-batch-record ';

/** The `openclaw` arguments of a read command: the same commands the CLI would run one by one. */
export function readCommandArgs(read: ReadCommand): string[] {
  switch (read.command) {
    case 'refreshRegistry':
      return ['plugins', 'registry', '--refresh', '--json'];
    case 'inspect':
      return ['plugins', 'inspect', read.pluginId, '--json'];
    case 'configGet':
      return ['config', 'get', read.section, '--json'];
  }
}

interface BatchRecord {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  /** The command printed more than the batch keeps (its stdout is then empty). */
  tooLarge?: boolean;
}

function isBatchRecord(value: unknown): value is BatchRecord {
  const record = value as Partial<BatchRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    Number.isInteger(record.code) &&
    typeof record.stdout === 'string' &&
    typeof record.stderr === 'string' &&
    typeof record.ms === 'number' &&
    (record.tooLarge === undefined || typeof record.tooLarge === 'boolean')
  );
}

/** One record line (RECORD_MARK then JSON); null for anything else (a torn or stray line). */
export function parseBatchRecord(line: string): BatchRecord | null {
  if (!line.startsWith(RECORD_MARK)) return null;
  try {
    const parsed: unknown = JSON.parse(line.slice(RECORD_MARK.length));
    return isBatchRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
