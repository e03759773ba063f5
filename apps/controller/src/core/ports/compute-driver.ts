import type { AgentRevision, PluginWarning, RuntimeManifest } from '@occ/contracts';

/** What preparing a revision found: ready (with warnings), still converging, or failed. */
export interface PrepareResult {
  ready: boolean;
  warnings?: PluginWarning[];
  /** Why it is not ready yet (e.g. REVISION_UNSCHEDULABLE); the worker waits without spending an attempt. */
  pendingReason?: string;
  /** The runtime failed to start; the worker retries (spending an attempt). Fixed text, no secrets. */
  runtimeFailure?: { code: string; message: string };
}

/** Every compute effect runs under the worker's lease: `signal` aborts once it runs out. */
export interface ComputeContext {
  signal: AbortSignal;
}

export interface AgentRef {
  namespaceId: string;
  agentId: string;
}

/**
 * The ComputeDriver port (DESIGN.md section 9). Implementations: `local` (embedded default),
 * `kubernetes`, `docker`, `ssh`. Every method must be idempotent: a later worker may repeat
 * any of them after a lost claim.
 */
export interface ComputeDriver {
  readonly id: string;
  /** Static, before any host effect: throws a ComputeValidationError for what this target cannot run. */
  validateRevision(revision: AgentRevision): void;
  prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, ctx: ComputeContext): Promise<PrepareResult>;
  activateRevision(revision: AgentRevision, ctx: ComputeContext): Promise<void>;
  stopRevision(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
  /** Removes a predecessor that is no longer active. */
  retireRevision(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
}

export class ComputeValidationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ComputeValidationError';
  }
}
