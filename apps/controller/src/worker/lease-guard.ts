import type { Claim, WorkQueue } from '../core/ports/work-queue.ts';
import { ClaimLostError } from '../core/ports/work-queue.ts';

class LeaseExpiredError extends Error {
  constructor() {
    super('The lease ran out before the effect finished.');
    this.name = 'LeaseExpiredError';
  }
}

/**
 * Keeps a claim's lease alive while compute effects run, and aborts them LOCALLY as soon as the
 * last lease this worker confirmed has run out — without asking the database, which may be the
 * very thing that stalled. The local deadline is measured from when each heartbeat was SENT,
 * so it always falls at or before the lease the database granted.
 */
export class LeaseGuard {
  private readonly controller = new AbortController();
  private deadline: number;
  private abortTimer: NodeJS.Timeout | undefined;
  private beatTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private beating = false;

  constructor(
    private readonly queue: Pick<WorkQueue<unknown>, 'heartbeat'>,
    private readonly claim: Claim,
    private readonly leaseMs: number,
    claimedAt: number,
  ) {
    this.deadline = claimedAt + leaseMs;
    this.armAbort();
    this.beatTimer = setInterval(() => void this.beat(), Math.max(50, Math.floor(leaseMs / 3)));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private armAbort(): void {
    clearTimeout(this.abortTimer);
    this.abortTimer = setTimeout(() => this.controller.abort(new LeaseExpiredError()), Math.max(0, this.deadline - performance.now()));
  }

  private async beat(): Promise<void> {
    // One heartbeat at a time: a slow database must not pile them up.
    if (this.signal.aborted || this.stopped || this.beating) return;
    this.beating = true;
    const sent = performance.now();
    try {
      await this.queue.heartbeat(this.claim, this.leaseMs);
      if (this.signal.aborted || this.stopped) return;
      this.deadline = sent + this.leaseMs;
      this.armAbort();
    } catch (error) {
      // A lost claim ends the effect now; any other failure (a stalled database) leaves the
      // last confirmed deadline in force.
      if (error instanceof ClaimLostError) this.controller.abort(error);
    } finally {
      this.beating = false;
    }
  }

  /** Runs one effect; it rejects as soon as the lease is gone, even if the effect ignores the signal. */
  async run<T>(effect: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { signal } = this;
    if (signal.aborted) throw signal.reason;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      effect(signal)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.abortTimer);
    clearInterval(this.beatTimer);
  }
}
