import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, nextRestart, RestartSeries, type BackoffPolicy } from '../../src/drivers/compute/runtime-contract/restart-backoff.ts';

/** The supervised restart rule of `local` and `ssh`, without processes or clocks. */
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

describe('restart backoff', () => {
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

describe('restart series of a checked runtime (the ssh host)', () => {
  function checked() {
    let now = 1_000_000;
    const series = new RestartSeries(policy, () => now);
    return { series, advance: (ms: number) => (now += ms) };
  }

  it('[S-2] each start that fails soon after it was made waits twice as long as the one before, up to the cap', () => {
    const { series, advance } = checked();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      series.started('a');
      advance(50);
      const wait = series.waitMs('a');
      waits.push(wait);
      advance(wait);
    }
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('a wait counts down across looks, and the next step is taken only after a start', () => {
    const { series, advance } = checked();
    series.started('a');
    advance(10);
    expect(series.waitMs('a')).toBe(100);
    advance(60);
    expect(series.waitMs('a')).toBe(40);
    advance(40);
    expect(series.waitMs('a')).toBe(0);
    advance(500);
    expect(series.waitMs('a')).toBe(0);
  });

  it('a start that stayed up resetAfterMs was healthy; one never seen (it outlived an OCC restart) counts as healthy', () => {
    const { series, advance } = checked();
    for (let i = 0; i < 4; i++) {
      series.started('a');
      advance(series.waitMs('a'));
    }
    series.started('a');
    advance(5_000);
    expect(series.waitMs('a')).toBe(100);
    expect(series.waitMs('never-started')).toBe(100);
  });

  it('a refused start (recorded as a start) is the next step, and forgetting a revision ends its series', () => {
    const { series, advance } = checked();
    series.started('a');
    advance(series.waitMs('a'));
    series.started('a');
    expect(series.waitMs('a')).toBe(200);
    series.forget('a');
    expect(series.waitMs('a')).toBe(100);
  });
});
