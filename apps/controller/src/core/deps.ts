import type { Agent } from '@occ/contracts';
import type { AuthenticationCache } from './iam/authentication-cache.ts';
import type { KeyedTurns } from './keyed-turns.ts';
import type { ComputeDriver } from './ports/compute-driver.ts';
import type { IdentityProvider } from './ports/identity-provider.ts';
import type { Metrics } from './ports/metrics.ts';
import type { PluginDriverRegistry } from './ports/plugin-driver.ts';
import type { SecretDriver } from './ports/secret-driver.ts';
import type { StateStore } from './ports/state.ts';

/**
 * What the use cases are given; only the composition root constructs these. The use cases in
 * `use-cases/*` are what the specification calls `OpenClawController` (e.g. `deployAgent`).
 */
/** Bounds of one deployment event stream (core/use-cases/deployment-events.ts). */
export interface EventStreamBounds {
  maxMs: number;
  maxEvents: number;
  keepAliveMs: number;
  /** How often the rows and the log are read while the deploy is under way. */
  pollMs: number;
}

export interface ControllerDeps {
  state: StateStore;
  secrets: SecretDriver;
  pluginDrivers: PluginDriverRegistry;
  now: () => Date;
  /** The Installation's ComputeDriver; absent → deploys answer 501. */
  compute?: ComputeDriver;
  work: WorkSettings;
  /** Invalidated by `state` after every change to access policy (iam/access-changes.ts); see AuthenticationCache. */
  authCache: AuthenticationCache;
  /** Agent PATCHes in this process take turns per Agent and hand the written Agent on (see updateAgent). */
  agentWrites: KeyedTurns<Agent>;
  /** Bounds of each deployment event stream (default DEFAULT_EVENT_STREAM_BOUNDS; tests shorten them). */
  eventStreams?: Partial<EventStreamBounds>;
  /** The OpenID relying party single sign-on uses (docs/sign-in.md); the provider itself is configuration (PUT /sign-in/provider). */
  identity: IdentityProvider;
  /** Where requests and discovery calls are counted (docs/observability.md); absent → nothing is recorded. */
  metrics?: Metrics;
}

export interface WorkSettings {
  /** Attempts a reconcile may spend before it fails permanently. */
  maxAttempts: number;
  /** How long a deploy may take to converge before it fails (CONVERGENCE_DEADLINE_EXCEEDED). */
  convergenceMs: number;
}

export const DEFAULT_WORK_SETTINGS: WorkSettings = { maxAttempts: 5, convergenceMs: 15 * 60_000 };
