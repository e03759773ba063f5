/** Restart delays of a supervised runtime: `baseMs` doubling per consecutive failure up to `capMs`. */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** A start that stayed up this long counts as healthy: the next failure starts the series over. */
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 30_000, resetAfterMs: 60_000 };

export interface RestartPlan {
  /** Failures in a row, this one included. */
  consecutiveFailures: number;
  delayMs: number;
}

/**
 * The next restart after a runtime that stayed up `upForMs` failed (exited, or reported a failed
 * startup), following `previousFailures` failures in a row. Pure: no clock, no process.
 */
export function nextRestart(policy: BackoffPolicy, previousFailures: number, upForMs: number): RestartPlan {
  const consecutiveFailures = upForMs >= policy.resetAfterMs ? 1 : Math.max(0, previousFailures) + 1;
  // 2 ** n overflows to Infinity for large n; min() then yields the cap.
  const delayMs = Math.min(policy.capMs, policy.baseMs * 2 ** (consecutiveFailures - 1));
  return { consecutiveFailures, delayMs };
}

/**
 * The restart series of runtimes a driver checks on a tick instead of watching (the ssh host's):
 * when each one, found exited or with a failed startup, may start again. Local arms a timer at
 * each exit instead (local/supervisor.ts); both follow `nextRestart`.
 */
export class RestartSeries {
  private readonly runs = new Map<string, { failures: number; startedAt: number; dueAt: number | null }>();

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A start of `key` was made (a deploy's, a restore's or a restart's), or tried and refused: its
   * time up counts from now, so a refusal found at the next look is the series' next step.
   */
  started(key: string): void {
    this.runs.set(key, { failures: this.runs.get(key)?.failures ?? 0, startedAt: this.now(), dueAt: null });
  }

  /**
   * How long until `key`, found down, may start again (0: now). The first call after a start takes
   * the series' next step; a start never seen (one that outlived an OCC restart) counts as healthy.
   */
  waitMs(key: string): number {
    const run = this.runs.get(key) ?? { failures: 0, startedAt: Number.NEGATIVE_INFINITY, dueAt: null };
    if (run.dueAt === null) {
      const plan = nextRestart(this.policy, run.failures, this.now() - run.startedAt);
      run.failures = plan.consecutiveFailures;
      run.dueAt = this.now() + plan.delayMs;
      this.runs.set(key, run);
    }
    return Math.max(0, run.dueAt - this.now());
  }

  forget(key: string): void {
    this.runs.delete(key);
  }
}
