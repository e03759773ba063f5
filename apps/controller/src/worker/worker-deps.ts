import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import type { StateStore, UnitOfWork } from '../core/ports/state.ts';
import type { Claim, WorkQueue } from '../core/ports/work-queue.ts';

export interface WorkerSettings {
  /** How long a claim lasts without a heartbeat. */
  leaseMs: number;
  /** Idle wait between claim attempts when the queue is empty. */
  pollMs: number;
  /** Wait before looking again at a revision that is not ready yet (no attempt spent). */
  convergencePollMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = { leaseMs: 30_000, pollMs: 1_000, convergencePollMs: 2_000 };

export interface WorkerDeps {
  state: StateStore;
  queue: WorkQueue;
  compute: ComputeDriver;
  /** Runs `fn` in one transaction that first verifies the live claim (else CLAIM_LOST). */
  underClaim<T>(claim: Claim, fn: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  settings: WorkerSettings;
  workerId: string;
  log?: (event: string, fields: Record<string, unknown>) => void;
}
