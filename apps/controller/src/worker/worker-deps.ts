import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import type { Metrics } from '../core/ports/metrics.ts';
import type { StateStore, UnitOfWork } from '../core/ports/state.ts';
import type { WorkQueue } from '../core/ports/work-queue.ts';
import type { StatusWatches } from './status-watches.ts';

export interface WorkerSettings {
  /** How long a claim lasts without a heartbeat. */
  leaseMs: number;
  /** Idle wait between claim attempts when the queue is empty. */
  pollMs: number;
  /** Wait before looking again at a revision that is not ready yet (no attempt spent). */
  convergencePollMs: number;
  /**
   * How often each running Agent's active revision is checked to run on the compute target
   * (ensure-active.ts); 0: never (only recovery at start and the deploys' own bring-back).
   */
  ensureActiveMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = { leaseMs: 30_000, pollMs: 1_000, convergencePollMs: 2_000, ensureActiveMs: 60_000 };

export interface WorkerDeps {
  state: StateStore;
  /** Its `withLiveClaim` hands callbacks the unit of work of the claim-checking transaction. */
  queue: WorkQueue<UnitOfWork>;
  compute: ComputeDriver;
  settings: WorkerSettings;
  workerId: string;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Where each attempt's outcome and each finished deploy's duration are recorded (docs/observability.md); absent → nowhere. */
  metrics?: Metrics;
  /** Set by the worker loop: the status watches that end convergence waits early. */
  statusWatches?: StatusWatches;
}
