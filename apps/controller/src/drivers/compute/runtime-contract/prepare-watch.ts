import { setTimeout as sleep } from 'node:timers/promises';
import type { PrepareResult } from '../../../core/ports/compute-driver.ts';

/** Whether a gateway serves (`probeGatewayReady` from `@occ/runtime/gateway-probe`), asked on a port OCC reaches. */
export type GatewayProbe = (port: number, token: string, signal: AbortSignal) => Promise<boolean>;

/** How long one prepare watches its runtime before it answers, unless a driver is told otherwise. */
export const DEFAULT_READY_WAIT_MS = 2_000;

/** How long one read of a runtime's status, or one gateway probe, may take on a target OCC reaches directly (local, docker, ssh). */
export const DEFAULT_PROBE_TIMEOUT_MS = 2_000;

/**
 * One prepare's watch, the same on every target: looks again every `pollMs` for up to `waitMs`,
 * and answers the first look that settled (ready or failed), one that holds for the worker's go
 * (`awaitsGo`: the worker acts on it at once, worker/give-go.ts), or the last look at the deadline.
 */
export async function watchPrepare(
  look: () => Promise<PrepareResult>,
  { waitMs, pollMs, signal }: { waitMs: number; pollMs: number; signal: AbortSignal },
): Promise<PrepareResult> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const result = await look();
    if (result.state !== 'pending' || result.awaitsGo || Date.now() + pollMs > deadline) return result;
    await sleep(pollMs, undefined, { signal });
  }
}

/**
 * Asks the gateway whether it serves, bounded by `timeoutMs`: false when it does not answer in
 * time or the probe fails; the caller's own abort still ends the prepare.
 */
export async function gatewayServes(probe: GatewayProbe, port: number, token: string, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  try {
    return (await probe(port, token, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]))) === true;
  } catch {
    signal.throwIfAborted();
    return false;
  }
}
