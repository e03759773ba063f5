import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { RuntimeLogsResponse } from '@occ/contracts';
import { followLogTail, type ApiClient } from '@occ/contracts/client';

/** Lines kept on screen while following: the oldest go first, so a long follow never fills memory. */
const MAX_SHOWN_LINES = 5000;
export const FOLLOW_INTERVAL_MS = 2000;

export interface RuntimeLogState {
  /** The revision these lines belong to (the shown lines never pass for another revision's). */
  revisionId: string | undefined;
  lines: readonly string[];
  truncated: boolean;
  status: 'idle' | 'loading' | 'loaded' | 'error';
  error: unknown;
  /** Why following stopped by itself (it is switched off then). */
  followError: unknown;
}

export interface RuntimeLog extends RuntimeLogState {
  following: boolean;
  setFollowing: (on: boolean) => void;
  reload: () => void;
}

const idle: RuntimeLogState = { revisionId: undefined, lines: [], truncated: false, status: 'idle', error: undefined, followError: undefined };

/**
 * A revision's runtime log: its last `tail` lines, and — while following — the lines written
 * since, read every 2 s like `occ logs -f` (the API has no cursor: each read is a tail, and only
 * what the previous tail did not end with is new). Leaving the view, switching revision or tail,
 * or switching Follow off aborts the reads.
 */
export function useRuntimeLog(api: ApiClient, ns: string, agentId: string, revisionId: string | undefined, tail: number): RuntimeLog {
  const [state, setState] = useState<RuntimeLogState>(idle);
  const [following, setFollowingState] = useState(false);
  const [generation, setGeneration] = useState(0);
  /** The last tail read: what the next read's new lines are measured against. */
  const windowRef = useRef<readonly string[]>([]);

  const read = useCallback(
    async (rev: string, signal: AbortSignal): Promise<RuntimeLogsResponse> =>
      (await api.call('getRuntimeLogs', { params: { ns, id: agentId, rev }, query: { tail }, signal })).data,
    [api, ns, agentId, tail],
  );

  useEffect(() => {
    if (!revisionId) {
      setState(idle);
      return undefined;
    }
    const controller = new AbortController();
    setState((previous) => ({ ...(previous.revisionId === revisionId ? previous : { ...idle, revisionId }), status: 'loading', error: undefined }));
    read(revisionId, controller.signal).then(
      (data) => {
        if (controller.signal.aborted) return;
        windowRef.current = data.lines;
        setState({ revisionId, lines: data.lines, truncated: data.truncated, status: 'loaded', error: undefined, followError: undefined });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((previous) => ({ ...previous, status: 'error', error }));
      },
    );
    return () => controller.abort();
  }, [read, revisionId, generation]);

  const loaded = state.status === 'loaded';
  useEffect(() => {
    if (!following || !revisionId || !loaded) return undefined;
    const controller = new AbortController();
    followLogTail({
      read: async (signal) => {
        const data = await read(revisionId, signal);
        windowRef.current = data.lines;
        return data.lines;
      },
      onLines: (lines) => {
        if (!controller.signal.aborted) setState((previous) => ({ ...previous, lines: [...previous.lines, ...lines].slice(-MAX_SHOWN_LINES) }));
      },
      seen: windowRef.current,
      signal: controller.signal,
      intervalMs: FOLLOW_INTERVAL_MS,
    }).catch((error: unknown) => {
      if (controller.signal.aborted) return;
      setState((previous) => ({ ...previous, followError: error }));
      setFollowingState(false);
    });
    return () => controller.abort();
  }, [following, read, revisionId, loaded]);

  const setFollowing = useCallback((on: boolean) => {
    if (on) setState((previous) => ({ ...previous, followError: undefined }));
    setFollowingState(on);
  }, []);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, following, setFollowing, reload };
}
