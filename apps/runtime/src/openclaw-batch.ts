import { fileURLToPath } from 'node:url';
import type { CliOutcome } from './openclaw-cli.ts';

/** The read-back commands the runtime runs together in one OpenClaw process (openclaw-batch.mjs). */
export type ReadCommand = { command: 'refreshRegistry' } | { command: 'inspect'; pluginId: string } | { command: 'configGet'; section: string };

/** One command's outcome in a batch, and how long it ran (its step's time in the startup progress). */
export interface BatchedOutcome {
  outcome: CliOutcome;
  ms: number;
}

/** The script that runs a batch with the CLI's own entry, one module load for all its commands. */
export const BATCH_SCRIPT = fileURLToPath(new URL('./openclaw-batch.mjs', import.meta.url));

const RECORD_MARK = '\u0000occ-batch-record ';

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
}

function isBatchRecord(value: unknown): value is BatchRecord {
  const record = value as Partial<BatchRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    Number.isInteger(record.code) &&
    typeof record.stdout === 'string' &&
    typeof record.stderr === 'string' &&
    typeof record.ms === 'number'
  );
}

/** The records a batch printed before it ended (lines without the mark are stray output, not a record). */
function batchRecords(stdout: string): BatchRecord[] {
  const records: BatchRecord[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith(RECORD_MARK)) continue;
    try {
      const parsed: unknown = JSON.parse(line.slice(RECORD_MARK.length));
      if (isBatchRecord(parsed)) records.push(parsed);
    } catch {
      // A torn record (the process was stopped while printing it): that command did not finish.
    }
  }
  return records;
}

/**
 * One outcome per command, in order, from how the batch process ended: each finished command's
 * own exit and output; the command running when the process ended (a timeout, a signal, a crash
 * between records) gets the process's outcome; every command after a failure is `skipped`.
 */
export function batchOutcomes(process: CliOutcome, count: number): BatchedOutcome[] {
  const printed = process.kind === 'exited' ? process.stdout : process.kind === 'timeout' || process.kind === 'signal' ? (process.partialStdout ?? '') : '';
  const outcomes: BatchedOutcome[] = batchRecords(printed)
    .slice(0, count)
    .map((record) => ({ outcome: { kind: 'exited', code: record.code, stdout: record.stdout, stderr: record.stderr }, ms: record.ms }));
  const failed = outcomes.some(({ outcome }) => outcome.kind === 'exited' && outcome.code !== 0);
  if (!failed && outcomes.length < count) {
    // The process ended without a record for this command: it is the one that failed.
    const ended: CliOutcome = process.kind === 'exited' ? { kind: 'exited', code: process.code === 0 ? 1 : process.code, stdout: '', stderr: process.stderr } : process;
    outcomes.push({ outcome: ended, ms: 0 });
  }
  while (outcomes.length < count) outcomes.push({ outcome: { kind: 'skipped' }, ms: 0 });
  return outcomes;
}
