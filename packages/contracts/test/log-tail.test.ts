import { describe, expect, it } from 'vitest';
import { followLogTail, newLines } from '../src/client/index.ts';

describe('the new lines of a log tail', () => {
  it('are what follows the overlap of two successive tails', () => {
    expect(newLines([], ['a', 'b'])).toEqual(['a', 'b']);
    // Full overlap: nothing new.
    expect(newLines(['a', 'b'], ['a', 'b'])).toEqual([]);
    // The log grew, under the window: everything seen is the start of the next tail.
    expect(newLines(['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e'])).toEqual(['d', 'e']);
    // The window slid (partial overlap): the next tail starts inside the previous one.
    expect(newLines(['a', 'b', 'c', 'd'], ['c', 'd', 'e', 'f'])).toEqual(['e', 'f']);
    // Repeated lines: the longest overlap is taken, so a repeat that is new still shows once.
    expect(newLines(['x', 'y', 'x', 'y'], ['x', 'y', 'x', 'y', 'x', 'y'])).toEqual(['x', 'y']);
    expect(newLines(['a', 'a', 'a'], ['a', 'a', 'a', 'a'])).toEqual(['a']);
    // No overlap: more arrived than a tail holds, or the log started over.
    expect(newLines(['a', 'b'], ['p', 'q'])).toEqual(['p', 'q']);
    expect(newLines(['a', 'b'], [])).toEqual([]);
  });
});

describe('following a log tail', () => {
  it('polls until aborted, handing over each new line once', async () => {
    const reads = [
      ['1', '2'],
      ['1', '2', '3'],
      ['2', '3', '4', '5'],
      ['2', '3', '4', '5'],
    ];
    const stop = new AbortController();
    const batches: string[][] = [];
    const waits: number[] = [];
    await followLogTail({
      seen: ['1', '2'],
      onLines: (lines) => batches.push(lines),
      signal: stop.signal,
      intervalMs: 2000,
      read: async () => reads.shift() ?? (stop.abort(), []),
      sleep: async (ms) => void waits.push(ms),
    });
    // Called only for reads that brought something.
    expect(batches).toEqual([['3'], ['4', '5']]);
    expect(waits).toEqual([2000, 2000, 2000, 2000, 2000]);
  });

  it('an abort while waiting ends it without another read', async () => {
    const stop = new AbortController();
    let reads = 0;
    await followLogTail({
      seen: [],
      onLines: () => {},
      signal: stop.signal,
      read: async () => (reads++, []),
      sleep: async () => void stop.abort(),
    });
    expect(reads).toBe(0);
  });

  it('a failed read is thrown (unless the follow was aborted meanwhile)', async () => {
    const failure = new Error('503');
    await expect(
      followLogTail({ seen: [], onLines: () => {}, signal: new AbortController().signal, read: async () => Promise.reject(failure), sleep: async () => {} }),
    ).rejects.toBe(failure);

    const stop = new AbortController();
    await expect(
      followLogTail({
        seen: [],
        onLines: () => {},
        signal: stop.signal,
        sleep: async () => {},
        read: async () => {
          stop.abort();
          throw failure;
        },
      }),
    ).resolves.toBeUndefined();
  });
});
