import { hostname } from 'node:os';
import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import type { Metrics } from '../core/ports/metrics.ts';
import type { SecretDriver } from '../core/ports/secret-driver.ts';
import { createComputeHostDirectory } from '../core/use-cases/namespace-ssh-hosts.ts';
import { createRuntimeStartAuthority } from '../core/use-cases/runtime-start.ts';
import type { UnitOfWork } from '../core/ports/state.ts';
import type { Database } from '../state/database.ts';
import { createStateStore, unitOfWork } from '../state/state-store.ts';
import { createWorkQueue, workChannel, type Backoff } from '../state/work-queue/index.ts';
import { recoverActiveRevisions } from '../worker/recover-active.ts';
import { WakeSignal } from '../worker/wake-signal.ts';
import { DEFAULT_WORKER_SETTINGS, type WorkerDeps, type WorkerSettings } from '../worker/worker-deps.ts';
import { startWorker } from '../worker/worker-loop.ts';

/** How long recovery waits before asking a database that did not answer again. */
const RECOVERY_RETRY_MS = 5_000;

export interface WorkerConfig {
  database: Database;
  compute: ComputeDriver;
  /** Opens the Secrets a runtime start delivers (the controller's SecretDriver, same key). */
  secrets: SecretDriver;
  settings?: Partial<WorkerSettings>;
  backoff?: Backoff;
  workerId?: string;
  log?: WorkerDeps['log'];
  /** Where attempts and deploy durations are recorded (the process's metrics listener, composition/metrics.ts). */
  metrics?: Metrics;
}

/**
 * Wires one reconcile worker: the queue's claim transactions carry the unit of work. The
 * ComputeDriver's own lifecycle follows the worker that drives it: `start`, then the active
 * revisions restored, before the first claim; `close` after the last effect.
 */
export function composeWorker(config: WorkerConfig): { deps: WorkerDeps; stop(): Promise<void> } {
  const state = createStateStore(config.database);
  const deps: WorkerDeps = {
    state,
    queue: createWorkQueue<UnitOfWork>(config.database, { bind: unitOfWork, ...(config.backoff ? { backoff: config.backoff } : {}) }),
    compute: config.compute,
    settings: { ...DEFAULT_WORKER_SETTINGS, ...config.settings },
    workerId: config.workerId ?? `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
    ...(config.log ? { log: config.log } : {}),
    ...(config.metrics ? { metrics: config.metrics } : {}),
  };
  // Every runtime start re-authorized with its Secrets; each Namespace's SSH host read at every host effect.
  config.compute.start?.(createRuntimeStartAuthority({ state, secrets: config.secrets }), createComputeHostDirectory({ state, secrets: config.secrets }));
  // What the pointers name runs again before the first claim (recover-active.ts).
  const recovery = new AbortController();
  const recovered = recoverActiveRevisions(deps, recovery.signal, RECOVERY_RETRY_MS);
  // Enqueues NOTIFY on commit: an idle worker claims within milliseconds, not a poll interval.
  // Without LISTEN (not offered, or not reachable at start) the worker polls.
  const wake = new WakeSignal();
  const { database } = config;
  const listening = database.listen
    ? workChannel(database)
        .then((channel) => database.listen!(channel, () => wake.notify()))
        .catch(() => null)
    : Promise.resolve(null);
  const running = startWorker(deps, wake, recovered);
  return {
    deps,
    async stop() {
      recovery.abort();
      await running.stop();
      await (await listening)?.();
      await config.compute.close?.();
    },
  };
}
