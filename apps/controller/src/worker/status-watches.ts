/**
 * Ends convergence waits early. When a revision is still converging, the worker defers its item
 * (the poll that stays the backstop) and watches the runtime's status here through the
 * ComputeDriver's `awaitStatusChange` (a long-poll); the moment the status changes, the item is
 * made claimable (`WorkQueue.hasten`) and the worker woken, so a deploy completes within
 * milliseconds of readiness instead of at the next poll. One watch per work item; claiming the
 * item again, or the worker stopping, ends its watch.
 */
export class StatusWatches {
  private readonly running = new Map<string, AbortController>();

  constructor(
    /** Called once per watch whose status changed (or whose wait ran out): hasten and wake. */
    private readonly changed: (key: string) => Promise<void>,
    private readonly stopping: AbortSignal,
  ) {}

  watch(key: string, wait: (signal: AbortSignal) => Promise<void>): void {
    this.end(key);
    const own = new AbortController();
    this.running.set(key, own);
    const signal = AbortSignal.any([own.signal, this.stopping]);
    void wait(signal)
      .then(
        () => (signal.aborted ? undefined : this.changed(key)),
        () => undefined,
      )
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(key) === own) this.running.delete(key);
      });
  }

  /** The item was claimed again (its prepare reads the status itself) or is gone. */
  end(key: string): void {
    this.running.get(key)?.abort();
    this.running.delete(key);
  }
}
