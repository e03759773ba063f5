import { setTimeout as sleep } from 'node:timers/promises';
import type { PrepareResult } from '../../../core/ports/compute-driver.ts';
import { failedPrepare, prepareResultOf, RESTARTING } from '../runtime-contract/prepare-result.ts';
import { isLive, type RuntimeHandle } from './runtime-handle.ts';
import type { RuntimeSupervisor } from './supervisor.ts';

const POLL_MS = 100;

/**
 * Watches a starting runtime for up to `waitMs`, then answers what it found; at once when it holds
 * in `prepared` for the worker's go (proceedRevision). Runs under the Agent's lock.
 */
export async function watchStartup(supervisor: RuntimeSupervisor, handle: RuntimeHandle, signal: AbortSignal, waitMs: number): Promise<PrepareResult> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = handle.state;
    if (state.kind === 'crashed') {
      // Exited before it was activated: this attempt failed; the next prepare starts afresh.
      supervisor.settleCrash(handle);
      return failedPrepare('RUNTIME_EXITED');
    }
    let result = RESTARTING;
    if (isLive(state)) {
      const seen = await supervisor.observe(handle, signal);
      if (seen.kind === 'failed') await supervisor.startupFailed(handle, state.proc, seen.code, signal);
      const serving = seen.kind === 'ready' && (await supervisor.gatewayServes(handle, seen.gatewayPort, signal));
      if (serving) supervisor.markRunning(handle, state.proc);
      result = prepareResultOf(seen, serving);
      if (result.state !== 'pending' || result.awaitsGo) return result;
    }
    if (Date.now() + POLL_MS > deadline) return result;
    await sleep(POLL_MS, undefined, { signal });
  }
}
