import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from '../common.ts';
import { LoadedRuntimeSchema, STARTUP_PHASES } from '../startup-status.ts';

/**
 * `GET …/deployments/:rev/runtime`: what runs for a revision NOW, read live from the
 * ComputeDriver at request time and never stored. Distinct from the deployment status, which is
 * the recorded result of the deploy attempt ([K-11]): a deploy may have succeeded and its runtime
 * crashed since, or a failed deploy's revision may never have run.
 */
export const RuntimeViewSchema = Closed({
  revisionId: IdSchema('agent_revision'),
  /** When the driver was read (ISO 8601). */
  observedAt: Type.String({ format: 'date-time' }),
  /** A process of this revision's runtime exists on the target now. */
  running: Type.Boolean(),
  /** The phase its own startup status reports, when it could be read and trusted. */
  phase: Type.Union([...STARTUP_PHASES.map((p) => Type.Literal(p)), Type.Null()]),
  startupId: Type.Union([Type.String(), Type.Null()]),
  /** Restarts after unexpected exits or failed starts since the driver began supervising it. */
  restarts: Type.Integer({ minimum: 0 }),
  /** Its trusted status is ready and its gateway answered, at this read. */
  ready: Type.Boolean(),
  /**
   * The environment variables the current start delivered from the Configuration's Secret
   * bindings (names, never values). `null`: withheld, because the caller may not read the
   * revision's Configuration (the names are its content).
   */
  deliveredSecrets: Type.Union([Type.Array(Type.String()), Type.Null()]),
  /** The closed code of the last failed start or unexpected exit, null when none. */
  lastFailureCode: Type.Union([Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' }), Type.Null()]),
  /**
   * What its gateway said it runs, read back at its last start: every plugin with the tools it
   * gives the agent (none for providers and channels), OpenClaw's own tools before the
   * Configuration's tool policy, and the enabled scheduled jobs. null: not ready, or not read back (Codex).
   */
  loaded: Type.Union([LoadedRuntimeSchema, Type.Null()]),
});
export type RuntimeView = Static<typeof RuntimeViewSchema>;
