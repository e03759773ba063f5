import { describe, expect, it } from 'vitest';
import { batchOutcomes, readCommandArgs } from '../../src/openclaw-batch.ts';

const MARK = '\u0000occ-batch-record ';
const record = (code: number, stdout: string, ms = 5) => `${MARK}${JSON.stringify({ code, stdout, stderr: '', ms })}\n`;

describe('the outcomes of a read-back batch (openclaw-batch.mjs)', () => {
  it('one outcome per command, each with its own output and time; stray lines are not records', () => {
    const stdout = `${record(0, '{"refreshed":true}', 40)}a stray line the CLI wrote past its stream\n${record(0, '{"tools":1}', 3)}`;
    expect(batchOutcomes({ kind: 'exited', code: 0, stdout, stderr: '' }, 2)).toEqual([
      { outcome: { kind: 'exited', code: 0, stdout: '{"refreshed":true}', stderr: '' }, ms: 40 },
      { outcome: { kind: 'exited', code: 0, stdout: '{"tools":1}', stderr: '' }, ms: 3 },
    ]);
  });

  it('after a command that failed, the rest are skipped', () => {
    const outcomes = batchOutcomes({ kind: 'exited', code: 0, stdout: record(0, '{}') + record(1, '{"ok":false}'), stderr: '' }, 4);
    expect(outcomes.map(({ outcome }) => outcome.kind)).toEqual(['exited', 'exited', 'skipped', 'skipped']);
    expect(outcomes[1]?.outcome).toMatchObject({ code: 1 });
  });

  it('the command running when the process timed out gets the timeout, not the finished ones', () => {
    const outcomes = batchOutcomes({ kind: 'timeout', stderr: 'slow', partialStdout: record(0, '{}') + MARK + '{"code":0,"std' }, 3);
    expect(outcomes.map(({ outcome }) => outcome.kind)).toEqual(['exited', 'timeout', 'skipped']);
  });

  it('a process that ended without its records (it could not load the CLI) fails the first command with its status', () => {
    expect(batchOutcomes({ kind: 'exited', code: 1, stdout: '', stderr: 'Cannot find module' }, 2).map(({ outcome }) => outcome)).toEqual([
      { kind: 'exited', code: 1, stdout: '', stderr: 'Cannot find module' },
      { kind: 'skipped' },
    ]);
    // Exit 0 with a record missing is still a failure of the command that printed none.
    expect(batchOutcomes({ kind: 'exited', code: 0, stdout: record(0, '{}'), stderr: '' }, 2)[1]?.outcome).toMatchObject({ kind: 'exited', code: 1 });
    expect(batchOutcomes({ kind: 'spawn-error' }, 2).map(({ outcome }) => outcome.kind)).toEqual(['spawn-error', 'skipped']);
  });

  it('the commands are the ones the CLI runs alone', () => {
    expect(readCommandArgs({ command: 'refreshRegistry' })).toEqual(['plugins', 'registry', '--refresh', '--json']);
    expect(readCommandArgs({ command: 'inspect', pluginId: 'memory-core' })).toEqual(['plugins', 'inspect', 'memory-core', '--json']);
    expect(readCommandArgs({ command: 'configGet', section: 'tools' })).toEqual(['config', 'get', 'tools', '--json']);
  });
});
