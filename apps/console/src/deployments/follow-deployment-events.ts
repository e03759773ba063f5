import { isDeploymentOutcome, type DeploymentEventData } from '@occ/contracts';
import { ApiError, type ServerSentEvent } from '@occ/contracts/client';
import { pause } from './pause.ts';

/** Opens one connection of the event stream, resuming after `lastEventId` when given. */
export type OpenEventStream = (lastEventId: string | undefined, signal: AbortSignal) => AsyncIterable<ServerSentEvent<DeploymentEventData>>;

/** Where the following stands, for a person: connected, or waiting `delayMs` before reconnecting. */
export type ConnectionState = { kind: 'connecting' } | { kind: 'waiting'; delayMs: number };

export interface FollowEventsOptions {
  open: OpenEventStream;
  onEvent: (event: DeploymentEventData) => void;
  onConnection?: (state: ConnectionState) => void;
  /**
   * Asked when the server ended a connection before the outcome (its 10 min / 500 events bounds,
   * or a proxy): false when the deploy is final after all, so there is nothing left to follow.
   */
  stillInProgress: (signal: AbortSignal) => Promise<boolean>;
  /** Aborted when the person leaves the view or follows another revision. */
  signal: AbortSignal;
  /** The pause after a connection that brought events (never a busy loop, even at the bounds). */
  minDelayMs?: number;
  /** The first pause after a connection that brought nothing or failed; it doubles each time, up to maxDelayMs. */
  backoffMs?: number;
  maxDelayMs?: number;
  /** Failed connections in a row tolerated before giving up (one that brings an event resets the count). */
  maxFailures?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type FollowEnd = { kind: 'outcome'; event: DeploymentEventData } | { kind: 'final' } | { kind: 'aborted' };

/** An answer worth retrying: the server or a proxy in front of it cannot serve right now. */
const transientStatus = (status: number) => status === 502 || status === 503 || status === 504;

/**
 * Follows a deployment's events until its outcome, like `occ deploy --wait`: each reconnect sends
 * the last `id:` as Last-Event-ID, so the server sends exactly the events not seen yet. A dropped
 * connection is retried with backoff; an error answer (404, 403, …) is thrown, as is the last of
 * too many failures in a row.
 */
export async function followDeploymentEvents(options: FollowEventsOptions): Promise<FollowEnd> {
  const { open, onEvent, onConnection, stillInProgress, signal, minDelayMs = 250, backoffMs = 1000, maxDelayMs = 30_000, maxFailures = 6, sleep = pause } = options;
  let lastEventId: string | undefined;
  let failures = 0;
  /** Connections in a row that brought no event: the backoff doubles with each. */
  let quiet = 0;
  while (!signal.aborted) {
    let received = 0;
    let failed = false;
    try {
      onConnection?.({ kind: 'connecting' });
      for await (const message of open(lastEventId, signal)) {
        if (message.id !== undefined) lastEventId = message.id;
        received += 1;
        failures = 0;
        onEvent(message.data);
        if (isDeploymentOutcome(message.data)) return { kind: 'outcome', event: message.data };
      }
      if (signal.aborted) break;
      if (!(await stillInProgress(signal))) return signal.aborted ? { kind: 'aborted' } : { kind: 'final' };
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof ApiError && !transientStatus(error.status)) throw error;
      failures += 1;
      failed = true;
      if (failures > maxFailures) throw error;
    }
    if (signal.aborted) break;
    quiet = received > 0 ? 0 : quiet + 1;
    const delayMs = received > 0 && !failed ? minDelayMs : Math.min(maxDelayMs, backoffMs * 2 ** Math.max(0, quiet - 1));
    onConnection?.({ kind: 'waiting', delayMs });
    await sleep(delayMs, signal);
  }
  return { kind: 'aborted' };
}
