import type { Harness, WorkOutcomeKind, WorkReasonCode } from '@occ/contracts';
import type { PluginDiscoveryFailure } from './plugin-driver.ts';
import type { WorkKind } from './work-queue.ts';

/**
 * The Metrics port: what the HTTP layer, the use cases and the worker count and time
 * (docs/observability.md). Every label is a closed vocabulary or a name the Installation
 * configured (a route template, a driver id, a reason code): never a URL, an id, a name or a
 * value a caller chose. Implementations record in memory and never throw or wait; without one,
 * nothing is recorded (`ControllerDeps.metrics` and `WorkerDeps.metrics` are optional).
 */
export interface Metrics {
  /** One HTTP request answered. `route` is the route's template (`/namespaces/:ns/agents/:id`), `unmatched` when none matched. */
  httpRequest(request: { method: string; route: string; status: number; seconds: number }): void;
  /** One work item's attempt ended as `outcome` with `reason` (`abandoned`/`CLAIM_LOST`: the worker lost its claim). */
  workAttempt(attempt: { kind: WorkKind; outcome: WorkOutcomeKind; reason: WorkReasonCode }): void;
  /** A deploy reached a terminal state: `seconds` from its admission (the revision's creation) to that state, both by the database clock. */
  deployFinished(deploy: { compute: string; harness: Harness; outcome: 'succeeded' | 'failed'; seconds: number }): void;
  /** One plugin discovery call of the PluginDriver `driver`: `ok`, or why it failed. */
  discoveryCall(call: { driver: string; outcome: DiscoveryOutcome }): void;
}

export type DiscoveryOutcome = 'ok' | PluginDiscoveryFailure;

/**
 * Where an Agent stands, read from stored rows (never a live probe): `undeployed`, never deployed;
 * `stopped`, stopped (its desired state); otherwise its latest revision's deploy: `deploying`
 * (queued, or being reconciled), `running` (succeeded), `failed` (failed; an earlier revision may
 * still serve).
 */
export const AGENT_PHASES = ['undeployed', 'deploying', 'running', 'failed', 'stopped'] as const;
export type AgentPhase = (typeof AGENT_PHASES)[number];

/** Open work items of one kind: `ready` may be claimed now, `delayed` waits for a retry's backoff, a convergence wait or (a periodic check) its moment. */
export interface WorkQueueGauge {
  kind: WorkKind;
  ready: number;
  delayed: number;
  claimed: number;
  /** How long the longest-waiting ready item has been claimable (0 when none is). */
  oldestReadySeconds: number;
}

/** How many Agents stand in `phase` on the ComputeDriver their latest revision names (`none`: never deployed). */
export interface AgentPhaseCount {
  phase: AgentPhase;
  compute: string;
  count: number;
}

/** What the state holds at one scrape: the gauges (core/use-cases/observed-state.ts reads them). */
export interface ObservedState {
  workQueue: WorkQueueGauge[];
  agents: AgentPhaseCount[];
}
