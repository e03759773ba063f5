import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeploymentEventData } from '../src/index.ts';
import { ApiError, ApiUnreachableError, followDeploymentEvents, pause, type ConnectionState, type OpenEventStream, type ServerSentEvent } from '../src/client/index.ts';

const rev = 'rev_00000000-0000-4000-8000-000000000001';
type Sse = ServerSentEvent<DeploymentEventData>;
const sse = (id: string, data: Omit<DeploymentEventData, 'revisionId'>): Sse => ({ id, event: data.type, data: { revisionId: rev, ...data } });

/** A fake server: each connection plays the next script (events, then an end or an error) and records its Last-Event-ID. */
function fakeStream(connections: Array<{ events: Sse[]; thenThrow?: Error }>) {
  const asked: Array<string | undefined> = [];
  const open: OpenEventStream = (lastEventId) => {
    asked.push(lastEventId);
    const script = connections.shift();
    if (!script) throw new Error('no more connections scripted');
    return (async function* () {
      for (const event of script.events) yield event;
      if (script.thenThrow) throw script.thenThrow;
    })();
  };
  return { open, asked };
}

/** A fake sleep that returns at once and records how long it was asked to wait. */
function recordedSleep() {
  const slept: number[] = [];
  return { slept, sleep: async (ms: number) => void slept.push(ms) };
}

const noSleep = async () => {};
const running = () => new AbortController().signal;
const outcome = (id: string) => sse(id, { type: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });

describe('following the deployment events', () => {
  it('reconnects with the last id after the server ends a connection at its bounds, until an outcome', async () => {
    const { open, asked } = fakeStream([
      { events: [sse('1', { type: 'admitted', revision: 1 }), sse('1001', { type: 'claimed', attempt: 1 })] },
      { events: [] },
      { events: [sse('1001001', { type: 'step', phase: 'plan', step: 'plan' })] },
      { events: [outcome('1001002')] },
    ]);
    const seen: string[] = [];
    const { slept, sleep } = recordedSleep();
    const result = await followDeploymentEvents({ open, onEvent: (event) => seen.push(event.type), signal: running(), sleep, backoffMs: 100 });
    expect(result).toEqual({ kind: 'outcome', event: expect.objectContaining({ type: 'succeeded', reasonCode: 'REVISION_ACTIVATED' }) });
    expect(seen).toEqual(['admitted', 'claimed', 'step', 'succeeded']);
    expect(asked).toEqual([undefined, '1001', '1001', '1001001']);
    // By default a connection that brought events resumes at once; only the empty one waited.
    expect(slept).toEqual([100]);
  });

  it('backs off doubling after each connection in a row that brings nothing, up to its cap, and says so', async () => {
    const { open } = fakeStream([...Array.from({ length: 5 }, () => ({ events: [] })), { events: [], thenThrow: new TypeError('terminated') }, { events: [outcome('1')] }]);
    const { slept, sleep } = recordedSleep();
    const states: ConnectionState[] = [];
    const result = await followDeploymentEvents({
      open,
      onEvent: () => {},
      onConnection: (state) => states.push(state),
      signal: running(),
      sleep,
      backoffMs: 100,
      maxDelayMs: 700,
    });
    expect(result.kind).toBe('outcome');
    expect(slept).toEqual([100, 200, 400, 700, 700, 700]);
    expect(states.filter((state) => state.kind === 'waiting')).toEqual(slept.map((delayMs) => ({ kind: 'waiting', delayMs })));
    expect(states.filter((state) => state.kind === 'connecting')).toHaveLength(7);
  });

  it('a connection that brings events resets the failures and the backoff; it waits minDelayMs', async () => {
    const drop = new ApiUnreachableError('http://x', new Error('ECONNRESET'));
    const { open, asked } = fakeStream([
      { events: [], thenThrow: drop },
      { events: [], thenThrow: drop },
      { events: [sse('1', { type: 'admitted' })], thenThrow: new TypeError('terminated') },
      { events: [], thenThrow: drop },
      { events: [sse('2', { type: 'failed', reasonCode: 'RUNTIME_FAILED' })] },
    ]);
    const { slept, sleep } = recordedSleep();
    // Four drops, but never more than two in a row without an event between them (without the
    // reset, the third would end it).
    const result = await followDeploymentEvents({ open, onEvent: () => {}, signal: running(), sleep, backoffMs: 10, minDelayMs: 5, maxFailures: 2 });
    expect(result.kind === 'outcome' && result.event.type).toBe('failed');
    expect(asked).toEqual([undefined, undefined, undefined, '1', '1']);
    expect(slept).toEqual([10, 20, 5, 10]);
  });

  it('gives up after too many dropped connections in a row, throwing the last failure', async () => {
    const drop = new ApiUnreachableError('http://x', new Error('ECONNRESET'));
    const always = fakeStream(Array.from({ length: 4 }, () => ({ events: [], thenThrow: drop })));
    await expect(followDeploymentEvents({ open: always.open, onEvent: () => {}, signal: running(), sleep: noSleep, maxFailures: 2 })).rejects.toBe(drop);
    expect(always.asked).toHaveLength(3);
  });

  it('a transient answer (503) is retried, and thrown after maxFailures in a row', async () => {
    const unavailable = new ApiError(503, 'UNAVAILABLE', 'Try again.');
    const once = fakeStream([{ events: [], thenThrow: unavailable }, { events: [outcome('1')] }]);
    expect((await followDeploymentEvents({ open: once.open, onEvent: () => {}, signal: running(), sleep: noSleep })).kind).toBe('outcome');
    expect(once.asked).toHaveLength(2);

    const always = fakeStream(Array.from({ length: 5 }, () => ({ events: [], thenThrow: unavailable })));
    await expect(followDeploymentEvents({ open: always.open, onEvent: () => {}, signal: running(), sleep: noSleep, maxFailures: 3 })).rejects.toBe(unavailable);
    expect(always.asked).toHaveLength(4);
  });

  it('an error answer (404) is thrown at once, with no retry', async () => {
    const notFound = new ApiError(404, 'NOT_FOUND', 'Revision not found.');
    const { open, asked } = fakeStream([{ events: [], thenThrow: notFound }, { events: [] }]);
    await expect(followDeploymentEvents({ open, onEvent: () => {}, signal: running(), sleep: noSleep })).rejects.toBe(notFound);
    expect(asked).toHaveLength(1);
  });

  it('an abort while waiting to reconnect ends following at once, as aborted', async () => {
    const stop = new AbortController();
    const idle = fakeStream(Array.from({ length: 3 }, () => ({ events: [] })));
    let waiting = () => {};
    const reachedWait = new Promise<void>((resolve) => (waiting = resolve));
    // A sleep that only an abort ends, like `pause` with a long delay.
    const sleep = (_ms: number, signal: AbortSignal) => {
      waiting();
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    };
    const following = followDeploymentEvents({ open: idle.open, onEvent: () => {}, signal: stop.signal, sleep, backoffMs: 60_000 });
    await reachedWait;
    stop.abort();
    expect(await following).toEqual({ kind: 'aborted' });
    expect(idle.asked).toHaveLength(1);
  });

  it('asks stillInProgress when a connection ends before the outcome: false ends as final, true keeps following', async () => {
    const ended = fakeStream([{ events: [sse('1', { type: 'admitted' })] }, { events: [] }]);
    const asked: number[] = [];
    const final = await followDeploymentEvents({
      open: ended.open,
      onEvent: () => {},
      signal: running(),
      sleep: noSleep,
      stillInProgress: async () => (asked.push(asked.length), false),
    });
    expect(final).toEqual({ kind: 'final' });
    expect(ended.asked).toHaveLength(1);
    expect(asked).toHaveLength(1);

    const goesOn = fakeStream([{ events: [sse('1', { type: 'admitted' })] }, { events: [outcome('2')] }]);
    const result = await followDeploymentEvents({ open: goesOn.open, onEvent: () => {}, signal: running(), sleep: noSleep, stillInProgress: async () => true });
    expect(result.kind).toBe('outcome');
    expect(goesOn.asked).toEqual([undefined, '1']);
  });
});

describe('pause', () => {
  afterEach(() => void vi.useRealTimers());

  it('resolves after its delay, or at once on abort, clearing its timer either way', async () => {
    vi.useFakeTimers();
    let done = false;
    const waited = pause(1000, new AbortController().signal).then(() => void (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waited;
    expect(vi.getTimerCount()).toBe(0);

    const stop = new AbortController();
    const aborted = pause(60_000, stop.signal);
    expect(vi.getTimerCount()).toBe(1);
    stop.abort();
    await aborted;
    expect(vi.getTimerCount()).toBe(0);
    await pause(60_000, stop.signal); // already aborted: no timer at all
    expect(vi.getTimerCount()).toBe(0);
  });
});
