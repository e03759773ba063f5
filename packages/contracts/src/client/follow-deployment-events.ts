import { isDeploymentOutcome } from '../deployment-words.ts';
import type { DeploymentEventData } from '../resources/deployment-events.ts';
import { ApiError } from './api-error.ts';
import { pause } from './pause.ts';
import type { ServerSentEvent } from './server-sent-events.ts';

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
   * Absent: keep following (the next connection brings the outcome if there is one).
   */
  stillInProgress?: (signal: AbortSignal) => Promise<boolean>;
  /** Aborted when the caller stops following (Ctrl-C, leaving the view, another revision). */
  signal: AbortSignal;
  /** The pause after a connection that brought events; 0 reconnects at once (they resume by Last-Event-ID). */
  minDelayMs?: number;
  /** The first pause after a connection that brought nothing (ended or failed); it doubles with each in a row, up to maxDelayMs. */
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
 * Follows a deployment's events until its outcome (`occ deploy --wait`, the console's progress):
 * each reconnect sends the last `id:` as Last-Event-ID, so the server sends exactly the events not
 * seen yet. A dropped connection is retried with backoff; an error answer (404, 403, …) is thrown,
 * as is the last of too many failures in a row. The defaults are the CLI's; the console passes
 * its own pacing.
 */
export async function followDeploymentEvents(options: FollowEventsOptions): Promise<FollowEnd> {
  const { open, onEvent, onConnection, stillInProgress, signal, minDelayMs = 0, backoffMs = 500, maxDelayMs = 30_000, maxFailures = 5, sleep = pause } = options;
  let lastEventId: string | undefined;
  let failures = 0;
  /** Connections in a row that brought no event: the backoff doubles with each. */
  let quiet = 0;
  while (!signal.aborted) {
    let received = 0;
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
      if (stillInProgress && !(await stillInProgress(signal))) return signal.aborted ? { kind: 'aborted' } : { kind: 'final' };
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof ApiError && !transientStatus(error.status)) throw error;
      failures += 1;
      if (failures > maxFailures) throw error;
    }
    if (signal.aborted) break;
    // A connection that brought events (ended at the server's bounds, or dropped) resumes after
    // a short pause; one that brought nothing waits longer each time.
    quiet = received > 0 ? 0 : quiet + 1;
    const delayMs = received > 0 ? minDelayMs : Math.min(maxDelayMs, backoffMs * 2 ** (quiet - 1));
    if (delayMs <= 0) continue;
    onConnection?.({ kind: 'waiting', delayMs });
    await sleep(delayMs, signal);
  }
  return { kind: 'aborted' };
}
