import { setTimeout as sleep } from 'node:timers/promises';
import type { StartupFailureDetail } from '@occ/contracts';
import type { PrepareResult } from '../../../core/ports/compute-driver.ts';
import { isLive, type RuntimeHandle } from './runtime-handle.ts';
import type { RuntimeSupervisor } from './supervisor.ts';

const POLL_MS = 100;
/** Fixed text: only the code comes from the runtime. */
const FAILURE_MESSAGE = 'The runtime failed to start.';

const failed = (code: string, detail?: StartupFailureDetail): PrepareResult => ({ state: 'failed', failure: { code, message: FAILURE_MESSAGE, ...(detail ? { detail } : {}) } });

/** Watches a starting runtime for up to `waitMs`, then answers what it found. Runs under the Agent's lock. */
export async function watchStartup(supervisor: RuntimeSupervisor, handle: RuntimeHandle, signal: AbortSignal, waitMs: number): Promise<PrepareResult> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = handle.state;
    if (state.kind === 'crashed') {
      // Exited before it was activated: this attempt failed; the next prepare starts afresh.
      supervisor.settleCrash(handle);
      return failed('RUNTIME_EXITED');
    }
    let reason = 'RUNTIME_RESTARTING';
    if (isLive(state)) {
      const seen = await supervisor.observe(handle, signal);
      if (seen.kind === 'failed') {
        await supervisor.startupFailed(handle, state.proc, seen.code, signal);
        return failed(seen.code, seen.detail);
      }
      if (seen.kind === 'ready') {
        if (await supervisor.gatewayServes(handle, seen.gatewayPort, signal)) {
          supervisor.markRunning(handle, state.proc);
          return { state: 'ready', warnings: seen.warnings };
        }
        reason = 'GATEWAY_STARTING';
      } else {
        reason = seen.kind === 'untrusted' ? 'RUNTIME_STATUS_UNTRUSTED' : 'RUNTIME_STARTING';
      }
    }
    if (Date.now() + POLL_MS > deadline) return { state: 'pending', reason };
    await sleep(POLL_MS, undefined, { signal });
  }
}
