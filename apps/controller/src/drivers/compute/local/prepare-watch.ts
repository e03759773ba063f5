import type { PrepareResult } from '../../../core/ports/compute-driver.ts';
import { failedPrepare, prepareResultOf, RESTARTING } from '../runtime-contract/prepare-result.ts';
import { watchPrepare } from '../runtime-contract/prepare-watch.ts';
import { isLive, type RuntimeHandle } from './runtime-handle.ts';
import type { RuntimeSupervisor } from './supervisor.ts';

const POLL_MS = 100;

/** One prepare's watch of a local runtime (runtime-contract/prepare-watch.ts). Runs under the Agent's lock. */
export function watchStartup(supervisor: RuntimeSupervisor, handle: RuntimeHandle, signal: AbortSignal, waitMs: number): Promise<PrepareResult> {
  return watchPrepare(
    async () => {
      const state = handle.state;
      if (state.kind === 'crashed') {
        // Exited before it was activated: this attempt failed; the next prepare starts afresh.
        supervisor.settleCrash(handle);
        return failedPrepare('RUNTIME_EXITED');
      }
      if (!isLive(state)) return RESTARTING;
      const seen = await supervisor.observe(handle, signal);
      if (seen.kind === 'failed') await supervisor.startupFailed(handle, state.proc, seen.code, signal);
      const serving = seen.kind === 'ready' && (await supervisor.gatewayServes(handle, seen.gatewayPort, signal));
      if (serving) supervisor.markRunning(handle, state.proc);
      return prepareResultOf(seen, serving);
    },
    { waitMs, pollMs: POLL_MS, signal },
  );
}
