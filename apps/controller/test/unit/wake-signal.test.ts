import { describe, expect, it } from 'vitest';
import { WakeSignal } from '../../src/worker/wake-signal.ts';

const elapsed = async (p: Promise<void>) => {
  const start = performance.now();
  await p;
  return performance.now() - start;
};

describe('WakeSignal', () => {
  it('waits the full interval without a wake, and returns at once on a wake', async () => {
    const wake = new WakeSignal();
    const never = new AbortController().signal;
    expect(await elapsed(wake.wait(60, never))).toBeGreaterThanOrEqual(50);
    const waiting = wake.wait(60_000, never);
    setTimeout(() => wake.notify(), 5);
    expect(await elapsed(waiting)).toBeLessThan(1_000);
  });

  it('remembers a wake that came before the wait until consumed (no enqueue is slept through)', async () => {
    const wake = new WakeSignal();
    const never = new AbortController().signal;
    wake.notify();
    expect(await elapsed(wake.wait(60_000, never))).toBeLessThan(1_000);
    wake.consume();
    expect(await elapsed(wake.wait(40, never))).toBeGreaterThanOrEqual(30);
  });

  it('returns when the signal aborts and leaves no abort listener behind after many waits', async () => {
    const wake = new WakeSignal();
    const stopping = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 30; i++) {
        const waiting = wake.wait(60_000, stopping.signal);
        wake.notify();
        await waiting;
        wake.consume();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      const waiting = wake.wait(60_000, stopping.signal);
      stopping.abort();
      expect(await elapsed(waiting)).toBeLessThan(1_000);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
