/**
 * Wakes an idle worker before its poll interval is over (work was enqueued). A wake that
 * arrives while the worker is busy claiming is remembered, so work enqueued between a claim
 * that found nothing and the wait after it is never slept through.
 */
export class WakeSignal {
  private pending = false;
  private waiter: (() => void) | null = null;

  notify(): void {
    this.pending = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  /** Forgets earlier wakes: call right before looking for work, which sees everything they announced. */
  consume(): void {
    this.pending = false;
  }

  /** Waits `ms`, or less on a wake (also one since the last `consume`) or when `signal` aborts; leaves no listener behind. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.waiter === done) this.waiter = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.waiter = done;
    });
  }
}
