import type { Harness } from '@occ/contracts';
import type { AgentRef } from '../../../core/ports/compute-driver.ts';
import type { AgentPaths, RevisionPaths } from './layout.ts';
import type { ExitInfo, RunningProcess } from './runtime-process.ts';
import type { Endpoint } from './endpoint.ts';

/**
 * Where one revision's runtime is, as this process supervises it. Transitions:
 *   staged | stopped | crashed | restarting ─spawn (authorized, with its Secrets)→ starting
 *   starting ─status ready and gateway serves→ running
 *   staged | stopped | restarting ─start refused→ restarting (the active revision) | unchanged (a candidate: prepare fails)
 *   starting | running ─unexpected exit→ crashed (a candidate: the next prepare reports it, then stopped)
 *                                      → restarting (the active revision: backoff, then spawn → starting)
 *   starting ─failed startup status→ restarting (the active revision) | stopped (a candidate)
 *   any ─stop→ stopped
 */
export type RuntimeState =
  | { kind: 'staged' }
  | { kind: 'starting'; proc: RunningProcess; endpoint: Endpoint | null }
  | { kind: 'running'; proc: RunningProcess; endpoint: Endpoint }
  | { kind: 'restarting'; timer: NodeJS.Timeout }
  | { kind: 'crashed'; exit: ExitInfo }
  | { kind: 'stopped' };

/** A candidate is being prepared; the active revision is the one activation adopted and supervision restarts. */
export type RuntimeRole = 'candidate' | 'active';

export interface RuntimeHandle {
  key: string;
  agent: AgentRef;
  revisionId: string;
  paths: RevisionPaths;
  agentPaths: AgentPaths;
  /** Every admitted selection key (a status may name any of them in a failure). */
  selections: ReadonlySet<string>;
  /** The enabled ones: a ready status must list each as installed or failed. */
  enabled: ReadonlySet<string>;
  role: RuntimeRole;
  /** The revision's harness (only OpenClaw candidates prepare beside a serving runtime). */
  harness: Harness;
  /**
   * A candidate started beside the Agent's serving runtime: it holds in `prepared` until this
   * driver has stopped the others and sent its go (docs/deployments.md). Only candidates hold.
   */
  holdsGateway: boolean;
  state: RuntimeState;
  /** Supervised restarts since this process began supervising it. */
  restarts: number;
  consecutiveFailures: number;
  /** The variable names the current start delivered (never values). */
  deliveredSecrets: readonly string[];
  /** The closed code of the last failed start or unexpected exit; null once a start served. */
  lastFailureCode: string | null;
}

export type LiveState = Extract<RuntimeState, { kind: 'starting' | 'running' }>;

export const keyOf = (agentId: string, revisionId: string) => `${agentId}/${revisionId}`;

/** A process of this runtime runs (starting or serving). */
export const isLive = (state: RuntimeState): state is LiveState => state.kind === 'starting' || state.kind === 'running';

/** Something runs or is about to run again: the Agent's one runtime slot is taken. */
export const occupiesAgent = (state: RuntimeState) => isLive(state) || state.kind === 'restarting';

export function newHandle(
  agent: AgentRef,
  revisionId: string,
  paths: RevisionPaths,
  agentPaths: AgentPaths,
  selections: Record<string, { enabled: boolean }>,
  harness: Harness = 'openclaw',
): RuntimeHandle {
  const keys = Object.keys(selections);
  return {
    key: keyOf(agent.agentId, revisionId),
    agent,
    revisionId,
    paths,
    agentPaths,
    selections: new Set(keys),
    enabled: new Set(keys.filter((k) => selections[k]!.enabled === true)),
    role: 'candidate',
    harness,
    holdsGateway: false,
    state: { kind: 'staged' },
    restarts: 0,
    consecutiveFailures: 0,
    deliveredSecrets: [],
    lastFailureCode: null,
  };
}
