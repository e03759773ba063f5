import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, type ServerSentEvent } from '@occ/contracts/client';
import { isDeploymentOutcome as isOutcome, type DeploymentEventData } from '@occ/contracts';

/** Opens one connection of the event stream, resuming after `lastEventId` when given. */
export type OpenEventStream = (lastEventId: string | undefined, signal: AbortSignal) => AsyncIterable<ServerSentEvent<DeploymentEventData>>;

export interface FollowEventsOptions {
  open: OpenEventStream;
  onEvent: (event: DeploymentEventData) => void;
  /** Aborted when the person stops following (Ctrl-C). */
  signal: AbortSignal;
  /** Pause before reconnecting after a connection that brought no event, so an idle stream is no busy loop. */
  idleReconnectMs?: number;
  /** Dropped connections in a row tolerated before giving up (a reconnect that brings an event resets the count). */
  maxFailures?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type FollowResult = { kind: 'outcome'; event: DeploymentEventData } | { kind: 'interrupted' };

/** Resolves after `ms`, or at once when the signal aborts (Node clears the timer either way). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** An answer worth retrying: the server or a proxy in front of it cannot serve right now. */
const transientStatus = (status: number) => status === 502 || status === 503 || status === 504;

/**
 * Follows a deployment's events until its outcome. The server ends each connection after the
 * outcome or at its bounds (10 min, 500 events); then this reconnects with the last `id:` as
 * `Last-Event-ID`, so the server sends exactly the events not seen yet. A dropped connection is
 * retried the same way; an error answer (404, 403, …) is not a dropped connection and is thrown.
 */
export async function followDeploymentEvents(options: FollowEventsOptions): Promise<FollowResult> {
  const { open, onEvent, signal, idleReconnectMs = 500, maxFailures = 5, sleep = pause } = options;
  let lastEventId: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    let received = 0;
    try {
      for await (const message of open(lastEventId, signal)) {
        if (message.id !== undefined) lastEventId = message.id;
        received += 1;
        failures = 0;
        onEvent(message.data);
        if (isOutcome(message.data)) return { kind: 'outcome', event: message.data };
      }
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof ApiError && !transientStatus(error.status)) throw error;
      failures += 1;
      if (failures > maxFailures) throw error;
    }
    if (signal.aborted) break;
    // A connection that ended at its bounds after events reconnects at once; one that brought
    // nothing (or failed) waits a little, longer after each failure.
    if (received === 0) await sleep(idleReconnectMs * 2 ** failures, signal);
  }
  return { kind: 'interrupted' };
}
