import { describe, expect, it } from 'vitest';
import type { DeploymentEventData } from '@occ/contracts';
import { ApiError, ApiUnreachableError, type ServerSentEvent } from '@occ/contracts/client';
import { followDeploymentEvents, type OpenEventStream } from '../../src/deploy/follow-events.ts';
import { followLogs, newLines } from '../../src/deploy/follow-logs.ts';

const rev = 'rev_00000000-0000-4000-8000-000000000001';
type Sse = ServerSentEvent<DeploymentEventData>;
const sse = (id: string, data: Omit<DeploymentEventData, 'revisionId'>): Sse => ({ id, event: data.type, data: { revisionId: rev, ...data } });

/** A fake server: each connection plays the next script (events, then an end or an error) and records its Last-Event-ID. */
function fakeStream(connections: Array<{ events: Sse[]; then?: Error }>) {
  const asked: Array<string | undefined> = [];
  const open: OpenEventStream = (lastEventId) => {
    asked.push(lastEventId);
    const script = connections.shift();
    if (!script) throw new Error('no more connections scripted');
    return (async function* () {
      for (const event of script.events) yield event;
      if (script.then) throw script.then;
    })();
  };
  return { open, asked };
}

const noSleep = async () => {};

describe('following the deployment events', () => {
  it('reconnects with the last id after the server ends a connection at its bounds, until an outcome', async () => {
    const { open, asked } = fakeStream([
      { events: [sse('1', { type: 'admitted', revision: 1 }), sse('1001', { type: 'claimed', attempt: 1 })] },
      { events: [] },
      { events: [sse('1001001', { type: 'step', phase: 'plan', step: 'plan' })] },
      { events: [sse('1001002', { type: 'succeeded', reasonCode: 'REVISION_ACTIVATED' })] },
    ]);
    const seen: string[] = [];
    const slept: number[] = [];
    const result = await followDeploymentEvents({
      open, onEvent: (event) => seen.push(event.type), signal: new AbortController().signal,
      sleep: async (ms) => void slept.push(ms), idleReconnectMs: 100,
    });
    expect(result).toEqual({ kind: 'outcome', event: expect.objectContaining({ type: 'succeeded', reasonCode: 'REVISION_ACTIVATED' }) });
    expect(seen).toEqual(['admitted', 'claimed', 'step', 'succeeded']);
    expect(asked).toEqual([undefined, '1001', '1001', '1001001']);
    // Only the empty connection waited before the next one.
    expect(slept).toEqual([100]);
  });

  it('retries a dropped connection with backoff and gives up after too many in a row', async () => {
    const drop = new ApiUnreachableError('http://x', new Error('ECONNRESET'));
    const { open, asked } = fakeStream([
      { events: [sse('1', { type: 'admitted' })], then: new TypeError('terminated') },
      { events: [], then: drop },
      { events: [sse('2', { type: 'failed', reasonCode: 'RUNTIME_FAILED' })] },
    ]);
    const slept: number[] = [];
    const result = await followDeploymentEvents({ open, onEvent: () => {}, signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms), idleReconnectMs: 10 });
    expect(result.kind === 'outcome' && result.event.type).toBe('failed');
    expect(asked).toEqual([undefined, '1', '1']);
    // Two failures in a row (the first after an event, reconnected at once): the second waits 10 ms × 2².
    expect(slept).toEqual([40]);

    const always = fakeStream(Array.from({ length: 4 }, () => ({ events: [], then: drop })));
    await expect(followDeploymentEvents({ open: always.open, onEvent: () => {}, signal: new AbortController().signal, sleep: noSleep, maxFailures: 2 })).rejects.toBe(drop);
    expect(always.asked).toHaveLength(3);
  });

  it('an error answer is thrown at once (no retry); Ctrl-C ends following as interrupted', async () => {
    const notFound = new ApiError(404, 'NOT_FOUND', 'Revision not found.');
    const { open, asked } = fakeStream([{ events: [], then: notFound }, { events: [] }]);
    await expect(followDeploymentEvents({ open, onEvent: () => {}, signal: new AbortController().signal, sleep: noSleep })).rejects.toBe(notFound);
    expect(asked).toHaveLength(1);

    const interrupt = new AbortController();
    const idle = fakeStream(Array.from({ length: 3 }, () => ({ events: [] })));
    const result = await followDeploymentEvents({
      open: idle.open, onEvent: () => {}, signal: interrupt.signal,
      sleep: async () => void interrupt.abort(),
    });
    expect(result).toEqual({ kind: 'interrupted' });
    expect(idle.asked).toHaveLength(1);
  });
});

describe('following the logs', () => {
  it('prints only what follows the overlap of two successive tails', () => {
    expect(newLines([], ['a', 'b'])).toEqual(['a', 'b']);
    expect(newLines(['a', 'b'], ['a', 'b'])).toEqual([]);
    // The log grew, under the window: everything seen is the start of the next tail.
    expect(newLines(['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e'])).toEqual(['d', 'e']);
    // The window slid: the next tail starts inside the previous one.
    expect(newLines(['a', 'b', 'c', 'd'], ['c', 'd', 'e', 'f'])).toEqual(['e', 'f']);
    // Repeated lines: the longest overlap is taken, so a repeat that is new still shows once.
    expect(newLines(['x', 'y', 'x', 'y'], ['x', 'y', 'x', 'y', 'x', 'y'])).toEqual(['x', 'y']);
    expect(newLines(['a', 'a', 'a'], ['a', 'a', 'a', 'a'])).toEqual(['a']);
    // No overlap: more arrived than a tail holds, or the log started over.
    expect(newLines(['a', 'b'], ['p', 'q'])).toEqual(['p', 'q']);
    expect(newLines(['a', 'b'], [])).toEqual([]);
  });

  it('polls until interrupted, printing each new line once', async () => {
    const reads = [['1', '2'], ['1', '2', '3'], ['2', '3', '4', '5'], ['2', '3', '4', '5']];
    const interrupt = new AbortController();
    const printed: string[] = [];
    const waits: number[] = [];
    await followLogs({
      seen: ['1', '2'], write: (line) => printed.push(line), signal: interrupt.signal, intervalMs: 2000,
      read: async () => reads.shift() ?? (interrupt.abort(), []),
      sleep: async (ms) => void waits.push(ms),
    });
    expect(printed).toEqual(['3', '4', '5']);
    expect(waits.every((ms) => ms === 2000)).toBe(true);
  });
});
