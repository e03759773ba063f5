import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, nextRestart, type BackoffPolicy } from '../../src/drivers/compute/local/restart-backoff.ts';

/** The local driver's restart rule, without processes or clocks. */
const policy: BackoffPolicy = { baseMs: 100, capMs: 1_000, resetAfterMs: 5_000 };

/** The delays of `n` failures in a row, each after `upForMs` up. */
function series(n: number, upForMs: number, p = policy): number[] {
  const delays: number[] = [];
  let failures = 0;
  for (let i = 0; i < n; i++) {
    const plan = nextRestart(p, failures, upForMs);
    failures = plan.consecutiveFailures;
    delays.push(plan.delayMs);
  }
  return delays;
}

describe('local ComputeDriver: restart backoff', () => {
  it('[S-2] doubles from the base per failure in a row and holds at the cap', () => {
    expect(series(7, 10)).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
  });

  it('counts the failures in a row, this one included', () => {
    expect(nextRestart(policy, 0, 0)).toEqual({ consecutiveFailures: 1, delayMs: 100 });
    expect(nextRestart(policy, 3, 0)).toEqual({ consecutiveFailures: 4, delayMs: 800 });
  });

  it('a start that stayed up resetAfterMs was healthy: the series starts over at the base', () => {
    expect(nextRestart(policy, 9, 5_000)).toEqual({ consecutiveFailures: 1, delayMs: 100 });
    expect(nextRestart(policy, 9, 4_999)).toEqual({ consecutiveFailures: 10, delayMs: 1_000 });
  });

  it('never exceeds the cap, however long the series (no overflow to Infinity or NaN)', () => {
    expect(nextRestart(policy, 5_000, 0).delayMs).toBe(1_000);
    expect(nextRestart(policy, Number.MAX_SAFE_INTEGER, 0).delayMs).toBe(1_000);
  });

  it('a negative count (never expected) starts a series rather than shortening the base', () => {
    expect(nextRestart(policy, -3, 0)).toEqual({ consecutiveFailures: 1, delayMs: 100 });
  });

  it('defaults: 1 s doubling to 30 s, reset after a minute up', () => {
    expect(series(7, 0, DEFAULT_BACKOFF)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(nextRestart(DEFAULT_BACKOFF, 6, 60_000).delayMs).toBe(1_000);
  });
});
