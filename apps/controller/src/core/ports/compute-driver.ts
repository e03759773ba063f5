import type { AgentRevision, LoadedRuntime, PluginWarning, RuntimeManifest, RuntimeProgressStep, StartupFailureDetail, StartupPhase } from '@occ/contracts';
import type { ComputeHostDirectory, NamespaceSshHost } from './compute-hosts.ts';
import type { RuntimeStartAuthority } from './runtime-start.ts';

/**
 * What preparing a revision found: ready (with the warnings its status admitted), still
 * converging (the worker waits without spending an attempt), or failed to start (the worker
 * retries, spending an attempt).
 */
export type PrepareResult = (
  | { state: 'ready'; warnings: PluginWarning[] }
  /**
   * `reason`: a closed code such as RUNTIME_STARTING or REVISION_UNSCHEDULABLE. `awaitsGo`: the
   * runtime was started to hold beside the Agent's serving one and is `prepared` (installed and
   * verified); the worker gives it the go (`proceedRevision`) unless this is the deploy's last look.
   */
  | { state: 'pending'; reason: string; awaitsGo?: true }
  /**
   * `failure.message` is fixed text, never a secret; only the code reaches stored status, with
   * the words the worker makes of `detail` (the failing selection, in closed terms) if any.
   */
  | { state: 'failed'; failure: { code: string; message: string; detail?: StartupFailureDetail } }
) & {
  /** The steps of the runtime's startup so far, as its trusted status reported them; the worker stores them for the deployment's events. */
  progress?: RuntimeProgress;
};

/**
 * Why the worker asks for the active revision again (for the target's log). `check`: its periodic
 * check, with nothing else of the Agent under way (worker/ensure-active.ts); a target whose own
 * supervision already keeps the revision running (ssh) leaves it to that.
 */
export type RestoreCause = { kind: 'candidate-failed'; revisionId: string } | { kind: 'recovery' } | { kind: 'check' };

/** One runtime startup's typed steps (its startup status's `progress`). */
export interface RuntimeProgress {
  startupId: string;
  steps: RuntimeProgressStep[];
}

/** Every compute effect runs under the worker's lease: `signal` aborts once it runs out. */
export interface ComputeContext {
  signal: AbortSignal;
  /**
   * `prepareRevision` only: the deploy's last look at a candidate (its convergence deadline has
   * passed). Report what runs; start no runtime that does not — one could not be ready in time, and
   * its start would stop the active revision (Recreate) only for the give-up to start it again. It
   * matters where runtimes end with OCC (`local`: the candidate a restart ended); a target whose
   * runtimes outlive OCC may ignore it. (A candidate awaiting its go gets none on the last look:
   * the worker does not call `proceedRevision` then.)
   */
  lastLook?: boolean;
}

export interface AgentRef {
  namespaceId: string;
  agentId: string;
}

/**
 * The ComputeDriver port (docs/architecture.md, "Ports"). Implementations: `local` (the embedded
 * default), `docker` (docs/compute-docker.md), `kubernetes` (docs/compute-kubernetes.md) and `ssh`
 * (docs/compute-ssh.md). Every method must be idempotent: a later worker may repeat
 * any of them after a lost claim.
 */
export interface ComputeDriver {
  readonly id: string;
  /**
   * What it knows of its runtimes lives in this process only (local: child processes of this host;
   * ssh: the Secrets each start delivered, and the supervision): one process per database may drive
   * it, or two would each start every Agent's runtime.
   */
  readonly singleProcess?: boolean;
  /**
   * What this target refuses of an Agent's plugin policy, known before any revision exists: an
   * Agent is refused at save time and at deploy (core/use-cases/plugin-policies.ts), and the
   * capability is shown in GET …/plugins/capabilities. Absent: every plugin map and approver list.
   */
  readonly pluginLimits?: ComputePluginLimits;
  /** Static, before any host effect: throws a ComputeValidationError for what this target cannot run. */
  validateRevision(revision: AgentRevision): void;
  /**
   * Checks a Namespace's SSH host before it is saved (ssh only): throws a ComputeValidationError
   * whose pointer names the body field (`/address`, `/user`, `/hostKey`, `/privateKeySecretId`).
   * Absent: this target places no Agent on an SSH host, and the route answers 409.
   */
  validateSshHost?(host: NamespaceSshHost): void;
  prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, ctx: ComputeContext): Promise<PrepareResult>;
  activateRevision(revision: AgentRevision, ctx: ComputeContext): Promise<void>;
  /**
   * Runs an Agent's active revision (the pointer's) when nothing of the Agent runs: after a
   * candidate of it ended without running, after this process started, and at the worker's
   * periodic check (the worker decides when: worker/give-up-candidate.ts, worker/recover-active.ts,
   * worker/ensure-active.ts). The same revision and Agent
   * state, no pointer change, re-authorized like every start. Does nothing while something of the
   * Agent runs (Recreate, and a runtime that outlived OCC) or when the target holds nothing of that
   * revision it could start — except that a target which cannot read back what an outliving runtime
   * was given (ssh) starts it again, so its Secrets are re-authorized. Does not wait for readiness.
   */
  restoreRevision(revision: AgentRevision, manifest: RuntimeManifest, cause: RestoreCause, ctx: ComputeContext): Promise<void>;
  /**
   * Resolves once the revision's runtime status may have changed since this driver last read it
   * in `prepareRevision` (a long-poll on the runtime's status server; its process ending resolves
   * it too), or after a bounded wait. The worker uses it to end a convergence wait the moment the
   * runtime is ready (worker/status-watches.ts). Absent: the wait runs its course.
   */
  awaitStatusChange?(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
  /**
   * The go to a revision whose prepare answered `awaitsGo` (prepared beside the Agent's serving
   * runtime): Recreate now — the Agent's other runtimes stop, then it is told to start its gateway,
   * so two gateways never serve the Agent and its downtime is one gateway start (docs/deployments.md,
   * "A redeploy prepares beside the serving revision"). Does nothing unless that revision's runtime
   * runs and still holds in `prepared` (a candidate that ended or went on meanwhile stops nothing).
   * Only the worker decides when (worker/reconcile-revision.ts). Absent: this target never holds.
   */
  proceedRevision?(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
  stopRevision(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
  /** Removes a predecessor that is no longer active. */
  retireRevision(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void>;
  /**
   * After the Agent was deleted (the worker's `remove_agent` work, docs/deployments.md): removes
   * everything this target holds for it — every revision's runtime, running or stopped, and what
   * the Agent as a whole has (a network, objects, files) — and says what it removed, for the audit
   * event. Idempotent: nothing left answers []. Absent: this target keeps nothing once stopped.
   */
  removeAgent?(agent: AgentRef, ctx: ComputeContext): Promise<RemovedResource[]>;
  /** What runs for a revision now (a live read, never stored). */
  describeRuntime?(agent: AgentRef, revisionId: string): Promise<RuntimeDescription>;
  /** The last lines of a revision's runtime log, bounded by the driver. */
  readLogs?(agent: AgentRef, revisionId: string, options: { tail: number }): Promise<RuntimeLogs>;
  /**
   * Called by the worker that drives the driver before its first call (`start`: keep `authority`
   * for every runtime start and `hosts` for where each Namespace's Agents run, clean up what a
   * killed OCC left behind) and after its last (`close`:
   * stop what this process runs). Every runtime start (first, supervised restart, restore) goes
   * through `authority.withStartEnvironment`: re-authorized, with the Secrets it delivers.
   */
  start?(authority: RuntimeStartAuthority, hosts?: ComputeHostDirectory): void;
  close?(): Promise<void>;
  /**
   * Relays one message to the revision's running gateway (its OpenAI-compatible chat endpoint)
   * and streams the reply (agent-message.ts). The driver alone knows the gateway's address and
   * token; the token never leaves it, and the reply is redacted of the runtime's tokens and
   * delivered Secret values. Absent: this target cannot relay (the route answers 501).
   */
  sendMessage?(agent: AgentRef, revisionId: string, message: GatewayMessage, signal: AbortSignal): Promise<GatewayReply>;
}

/** Whether a target runs plugin selections and Agent-wide default approvers at all ([P-3]: SSH runs neither). */
export interface ComputePluginLimits {
  plugins: boolean;
  agentApprovers: boolean;
}

/** One user message for a gateway. */
export interface GatewayMessage {
  text: string;
  /** The gateway's conversation key (OpenAI `user`): the same key continues the same agent session. */
  session: string;
}

/**
 * What a relay found: the gateway is not serving this revision now (`state` says what it is
 * instead, in words), or it accepted the message and `chunks` streams the reply.
 */
export type GatewayReply = { kind: 'not-serving'; state: string } | { kind: 'unavailable'; reason: string } | { kind: 'replying'; chunks: AsyncIterable<GatewayReplyChunk> };

/** A piece of the reply's text, its end, or its failure (fixed words, never the gateway's own). */
export type GatewayReplyChunk = { kind: 'text'; text: string } | { kind: 'done'; finishReason: string | null } | { kind: 'failed'; reason: string };

export interface RuntimeDescription {
  running: boolean;
  /** The phase the runtime's own startup status reports, when it can be read and trusted. */
  phase: StartupPhase | null;
  startupId: string | null;
  /** Restarts after unexpected exits since this process began supervising it. */
  restarts: number;
  /** Its status was ready (trusted) and its gateway answered, at this read. */
  ready: boolean;
  /** The variables the current start delivered from Secret bindings: names only, never values. */
  deliveredSecrets: string[];
  /** The closed code of this runtime's last failed start or unexpected exit (e.g. SECRET_ACCESS_REVOKED), null when none. */
  lastFailureCode: string | null;
  /** What its gateway said it runs (plugins, tools, scheduled jobs), from a trusted ready status; null when not known. */
  loaded: LoadedRuntime | null;
}

/** One thing `removeAgent` removed: its kind on the target (`container`, `network`, `Deployment`, …) and its name there. */
export interface RemovedResource {
  kind: string;
  name: string;
}

export interface RuntimeLogs {
  lines: string[];
  /** Earlier lines exist that were not returned, or a line was cut. */
  truncated: boolean;
}

export class ComputeValidationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The revision's field this target refuses, as a JSON pointer into the Agent (e.g. `/plugins`); absent: the revision as a whole. */
    readonly pointer = '',
  ) {
    super(message);
    this.name = 'ComputeValidationError';
  }
}
