import { useCallback, useEffect, useState } from 'preact/hooks';
import { deploymentActivityAfter, type DeploymentEventData } from '@occ/contracts';
import { followDeploymentEvents, type ApiClient, type ConnectionState, type FollowEnd } from '@occ/contracts/client';

/** One event as shown: its data and when the console received it. */
export interface ReceivedEvent {
  key: number;
  data: DeploymentEventData;
  receivedAt: number;
}

export interface DeploymentProgress {
  events: readonly ReceivedEvent[];
  /** What is going on now, in words (the live region announces this, not every line). */
  activity: string | undefined;
  connection: ConnectionState | { kind: 'ended'; end: FollowEnd } | { kind: 'failed'; error: unknown };
  /** Follow again from the start (after a failure). */
  restart: () => void;
}

const FINAL_STATES = new Set(['succeeded', 'failed', 'superseded', 'stopped']);
/** A deploy's events are bounded by the server; this only keeps a runaway stream from filling memory. */
const MAX_EVENTS = 2000;
/**
 * The console's pacing between connections (the CLI keeps the defaults): a tab left open never
 * reconnects in a tight loop, even at the server's bounds, and waits a little longer before
 * retrying than a person at a terminal would.
 */
const PACING = { minDelayMs: 250, backoffMs: 1000, maxFailures: 6 };

/**
 * Follows one revision's deployment events while the view shows it. A new connection replays
 * the events from the start, so a finished deploy shows its history and ends at its outcome.
 * Leaving the view or switching revisions aborts the stream (and any wait between reconnects).
 */
export function useDeploymentProgress(api: ApiClient, ns: string, agentId: string, revisionId: string | undefined): DeploymentProgress {
  const [events, setEvents] = useState<ReceivedEvent[]>([]);
  const [activity, setActivity] = useState<string | undefined>(undefined);
  const [connection, setConnection] = useState<DeploymentProgress['connection']>({ kind: 'connecting' });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    setEvents([]);
    setActivity(undefined);
    if (!revisionId) return undefined;
    const controller = new AbortController();
    const { signal } = controller;
    const params = { ns, id: agentId, rev: revisionId };
    let count = 0;
    followDeploymentEvents({
      open: (lastEventId, connectionSignal) => api.stream('streamDeploymentEvents', { params, signal: connectionSignal, ...(lastEventId ? { lastEventId } : {}) }),
      onEvent: (data) => {
        if (signal.aborted) return;
        const key = count++;
        setEvents((previous) => [...previous.slice(-(MAX_EVENTS - 1)), { key, data, receivedAt: Date.now() }]);
        const next = deploymentActivityAfter(data);
        if (next !== undefined) setActivity(next);
      },
      onConnection: (state) => {
        if (!signal.aborted) setConnection(state);
      },
      stillInProgress: async (statusSignal) => {
        const { data } = await api.call('getDeploymentStatus', { params, signal: statusSignal });
        return !FINAL_STATES.has(data.state);
      },
      signal,
      ...PACING,
    }).then(
      (end) => {
        if (!signal.aborted) setConnection({ kind: 'ended', end });
      },
      (error: unknown) => {
        if (!signal.aborted) setConnection({ kind: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [api, ns, agentId, revisionId, generation]);

  const restart = useCallback(() => setGeneration((value) => value + 1), []);
  return { events, activity, connection, restart };
}
