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
