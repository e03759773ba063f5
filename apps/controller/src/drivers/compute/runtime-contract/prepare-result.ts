import type { StartupFailureDetail } from '@occ/contracts';
import type { PrepareResult } from '../../../core/ports/compute-driver.ts';
import type { Observation } from './startup-status.ts';

/** Fixed text: only the code (and a detail naming an admitted selection) comes from the runtime, and only codes reach stored status. */
export const STARTUP_FAILURE_MESSAGE = 'The runtime failed to start.';

export type FailedPrepare = Extract<PrepareResult, { state: 'failed' }>;

/** A prepare that failed with `code`; `message` is fixed text of the driver's own (never a runtime's or a peer's words). */
export function failedPrepare(code: string, message = STARTUP_FAILURE_MESSAGE, detail?: StartupFailureDetail): FailedPrepare {
  return { state: 'failed', failure: { code, message, ...(detail ? { detail } : {}) } };
}

/** The runtime of the revision is not running now (exited, and restarting or about to be). */
export const RESTARTING: PrepareResult = { state: 'pending', reason: 'RUNTIME_RESTARTING' };

/**
 * What one look at a running runtime means for the prepare: its failed status fails it; ready
 * needs a trusted ready status AND a gateway that serves (`gatewayServes`, asked by the driver
 * only for a ready status); anything else is still converging, with its closed reason — a runtime
 * holding in `prepared` awaits the worker's go (`awaitsGo`).
 */
export function prepareResultOf(observation: Observation, gatewayServes: boolean): PrepareResult {
  const progress = observation.kind !== 'untrusted' && observation.progress ? { progress: observation.progress } : {};
  switch (observation.kind) {
    case 'failed':
      return { ...failedPrepare(observation.code, STARTUP_FAILURE_MESSAGE, observation.detail), ...progress };
    case 'ready':
      return gatewayServes ? { state: 'ready', warnings: observation.warnings, ...progress } : { state: 'pending', reason: 'GATEWAY_STARTING', ...progress };
    case 'untrusted':
      return { state: 'pending', reason: 'RUNTIME_STATUS_UNTRUSTED' };
    case 'starting':
      return { state: 'pending', reason: 'RUNTIME_STARTING', ...(observation.prepared ? { awaitsGo: true } : {}), ...progress };
  }
}
