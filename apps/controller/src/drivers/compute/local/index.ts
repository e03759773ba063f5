import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import type {
  AgentRef,
  ComputeContext,
  ComputeDriver,
  GatewayMessage,
  GatewayReply,
  PrepareResult,
  RemovedResource,
  RestoreCause,
  RuntimeDescription,
  RuntimeLogs,
} from '../../../core/ports/compute-driver.ts';
import type { RevisionRef, RuntimeStartAuthority } from '../../../core/ports/runtime-start.ts';
import { DeliveredValues } from '../runtime-contract/delivered-values.ts';
import type { CodexRuntimeSettings } from '../runtime-contract/codex-settings.ts';
import { agentPaths, isAgentId, isRevisionId, privateDir, revisionPaths } from './layout.ts';
import { tailLog } from './log-tail.ts';
import { removeAgentFiles } from './remove-agent.ts';
import { watchStartup } from './prepare-watch.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../runtime-contract/restart-backoff.ts';
import { stageRevision, stagedManifest } from './revision-files.ts';
import { runtimeEnvironment } from '../runtime-contract/runtime-env.ts';
import { isLive, keyOf, newHandle, occupiesAgent, type RuntimeHandle } from './runtime-handle.ts';
import { logLine, reapStray, type LaunchCommand } from './runtime-process.ts';
import { relayToGateway } from '../runtime-contract/gateway-chat.ts';
import { tailLength } from '../runtime-contract/log-lines.ts';
import { failedPrepare } from '../runtime-contract/prepare-result.ts';
import { lineRedactor } from '../runtime-contract/redaction.ts';
import { restoreEvent } from '../runtime-contract/restore-event.ts';
import { checkManifestDescribes, validateRunnableRevision } from '../runtime-contract/runnable-revision.ts';
import { describeObserved, noRuntime, notServingYet } from '../runtime-contract/runtime-description.ts';
import { isRefusal, startAuthority, StartRefused } from '../runtime-contract/start-refusal.ts';
import { RuntimeSupervisor, type PreparedLaunch } from './supervisor.ts';
import { withNetworkOverrides } from '@occ/host-io/network-env';
import { upstreamProxyOf } from './sandbox/egress-gate.ts';
import { freshBridgeDirectory, openHostBridge } from './sandbox/host-bridge.ts';
import { CONFINEMENT_VARIABLE, DEFAULT_CONFINEMENT, loopbackPortOf, probeSandbox, type ConfinementMode } from './sandbox/confinement.ts';
import { sandboxCommand } from './sandbox/sandbox-command.ts';
import { sandboxPlan } from './sandbox/runtime-sandbox.ts';
import { acquireSupervisorLock } from './supervisor-lock.ts';
import type { RedeployMode } from '../runtime-contract/redeploy-mode.ts';
import { DEFAULT_REDEPLOY, preparesBeside } from './redeploy-mode.ts';
import { NpmContentStore } from './npm-content-store.ts';
import { deriveToken, loadDriverKey, TOKEN_LABELS, type TokenLabel } from '../runtime-contract/driver-key.ts';
import { DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_READY_WAIT_MS, type GatewayProbe } from '../runtime-contract/prepare-watch.ts';

export type { LaunchCommand } from './runtime-process.ts';

export interface LocalComputeOptions {
  /** Everything the driver keeps lives here (composition: `<dataDir>/compute/local`). */
  rootDir: string;
  /** How to start a runtime process (`runtimeLaunchCommand` from `@occ/runtime/launch`). */
  launch: () => LaunchCommand;
  /** Whether the gateway serves (`probeGatewayReady` from `@occ/runtime/gateway-probe`). */
  probeGateway: GatewayProbe;
  /** Passed to the runtime as OCC_RUNTIME_CATALOG / OCC_RUNTIME_NPM_REGISTRY. */
  catalog?: string | undefined;
  npmRegistry?: string | undefined;
  /** Passed to the runtime as OCC_RUNTIME_UNSELECTED_PLUGINS (docs/plugin-policy.md, "Only what was selected"). */
  unselectedPlugins?: string | undefined;
  /** Passed to the runtime as OCC_RUNTIME_CODEX_* (`codexRuntimeSettings`, codex-settings.ts); default none. */
  codex?: CodexRuntimeSettings | undefined;
  /** The runtimes' CA, proxy and npm variables (`runtimeNetworkSettings`, network-settings.ts); default none. */
  network?: Readonly<Record<string, string>>;
  /** How a running OpenClaw revision is replaced (redeploy-mode.ts; default `recreate`, the specification's order). */
  redeploy?: RedeployMode;
  /** How runtimes are confined (sandbox/confinement.ts; default `sandbox`); `none` is the logged development opt-out. */
  confinement?: ConfinementMode;
  /** Whether this host can confine runtimes: null when it can, else why not (default `probeSandbox`, run once at the first start). */
  probeSandbox?: () => string | null;
  /** Host loopback ports a confined runtime may reach (`localSharedLoopbackPorts`, confinement.ts): a local model server, say. */
  sharedLoopbackPorts?: readonly number[];
  /** Read for PATH and LANG only (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** SIGTERM → SIGKILL of the process group (default 25 s: the runtime gives its gateway 20 s). */
  stopGraceMs?: number;
  /** Restart delays after unexpected exits and failed startups (restart-backoff.ts). */
  backoff?: BackoffPolicy;
  /** One status or gateway read (default 2 s). */
  probeTimeoutMs?: number;
  /** How long one prepare call watches a starting runtime before answering "not ready yet" (default 2 s). */
  readyWaitMs?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface LocalComputeDriver extends ComputeDriver {
  describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription>;
  readLogs(agent: AgentRef, revisionId: string, options: { tail: number }): Promise<RuntimeLogs>;
  sendMessage(agent: AgentRef, revisionId: string, message: GatewayMessage, signal: AbortSignal): Promise<GatewayReply>;
  /** Required before any runtime starts: every start asks `authority` (tests: test-support/static-start-authority.ts). */
  start(authority: RuntimeStartAuthority): void;
  close(): Promise<void>;
}

/** A runtime that is not running, in words. */
function describeIdle(kind: RuntimeHandle['state']['kind']): string {
  if (kind === 'restarting') return 'it exited and is restarting';
  if (kind === 'crashed') return 'it exited';
  return 'it is stopped';
}

export function createLocalComputeDriver(options: LocalComputeOptions): LocalComputeDriver {
  return new LocalCompute(options);
}

/**
 * The ComputeDriver port over the supervisor: Recreate (one runtime per Agent at a time), staging
 * files, which revision of each Agent is active (in memory: set by activation and by recovery
 * from the database's pointers), and running it again when the worker asks (`restoreRevision`).
 */
class LocalCompute implements LocalComputeDriver {
  readonly id = 'local';
  readonly singleProcess = true;
  private readonly root: string;
  private readonly supervisor: RuntimeSupervisor;
  /** Agent id → the revision this driver runs as active (the pointer's, as of activation or recovery). */
  private readonly active = new Map<string, string>();
  /** Secret values delivered by this process, per revision key, for redacting its log (memory only). */
  private readonly deliveredValues = new DeliveredValues();
  private authority: RuntimeStartAuthority | null = null;
  private key: Buffer | null = null;
  private releaseLock: (() => void) | null = null;
  private closed = false;
  private readonly npmContent: NpmContentStore;
  /** Why this host cannot confine runtimes ('' when it can); probed at the first start. */
  private sandboxProblem: string | undefined;

  constructor(private readonly options: LocalComputeOptions) {
    this.root = options.rootDir;
    this.npmContent = new NpmContentStore(options.rootDir, options.catalog);
    this.supervisor = new RuntimeSupervisor({
      launch: (handle) => this.launchFor(handle),
      withStartEnvironment: (handle, spawn) => this.withStartEnvironment(handle, spawn),
      probeGateway: options.probeGateway,
      token: (label, revisionId) => this.token(label, revisionId),
      graceMs: options.stopGraceMs ?? 25_000,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      probeTimeoutMs: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      log: options.log,
    });
  }

  validateRevision(revision: AgentRevision): void {
    validateRunnableRevision(revision, 'local');
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Keeps `authority` for every start, then brings back what the database says is active. */
  start(authority: RuntimeStartAuthority): void {
    if (this.releaseLock || this.closed) return;
    privateDir(this.root);
    this.releaseLock = acquireSupervisorLock(this.root);
    this.tokenKey();
    this.authority = authority;
    // Nothing else of this driver runs before the runtimes a killed OCC left behind are gone.
    this.supervisor.holdUntil(this.reapStrays());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A restarted OCC brings back what the database's pointers name.
    await this.supervisor.close();
    this.releaseLock?.();
  }

  /** After a restart: stops the runtimes a killed OCC left behind (the worker then restores what the pointers name). */
  private async reapStrays(): Promise<void> {
    const agentsDir = join(this.root, 'agents');
    const agentIds = existsSync(agentsDir) ? readdirSync(agentsDir).filter(isAgentId) : [];
    const grace = this.options.stopGraceMs ?? 25_000;
    for (const agentId of agentIds) {
      try {
        const ap = agentPaths(this.root, agentId);
        const revisionIds = existsSync(ap.revisions) ? readdirSync(ap.revisions).filter(isRevisionId) : [];
        for (const revisionId of revisionIds) await reapStray(revisionPaths(this.root, agentId, revisionId), grace);
      } catch (error) {
        this.options.log?.('compute.local.reap_failed', { agentId, error: String(error) });
      }
    }
  }

  // ---- the port ----------------------------------------------------------------------------

  async prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, { signal, lastLook }: ComputeContext): Promise<PrepareResult> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    return this.supervisor.locked(revision.agentId, signal, async () => {
      const handle = this.stage(revision, manifest);
      // A deploy's last look starts nothing (the candidate an OCC restart ended stays ended): still not ready.
      if (lastLook && (handle.state.kind === 'staged' || handle.state.kind === 'stopped')) return { state: 'pending', reason: 'RUNTIME_STARTING' };
      // A crashed candidate is only reported (the worker then brings the active revision back): nothing else of the Agent is touched.
      if (handle.state.kind !== 'crashed') {
        const starts = handle.state.kind === 'staged' || handle.state.kind === 'stopped';
        if (starts) handle.holdsGateway = preparesBeside(this.options.redeploy ?? DEFAULT_REDEPLOY, handle, this.othersRunning(handle));
        // Recreate: the Agent's other runtime (its old gateway) stops before this one changes the
        // Agent's state — before its installs, or (prepared beside it) at the worker's go once it
        // is `prepared` (proceedRevision).
        if (!handle.holdsGateway) await this.stopOthers(revision.agentId, revision.id, signal);
        if (starts) {
          const refused = await this.firstStart(handle);
          if (refused) return refused;
        }
      }
      // A failed candidate is stopped; the worker brings the active revision back (restoreRevision).
      const result = await watchStartup(this.supervisor, handle, signal, this.options.readyWaitMs ?? DEFAULT_READY_WAIT_MS);
      if (result.state === 'ready') this.harvestNpmContent(handle);
      return result;
    });
  }

  /**
   * The installation's npm content store (npm-content-store.ts): what a ready revision's installs
   * downloaded of the catalog's pinned plugins is kept, and every runtime is shown the store
   * read-only (OCC_RUNTIME_NPM_CONTENT) and copies it into its own npm cache before it installs.
   * Never fails a deploy.
   */
  private harvestNpmContent(handle: RuntimeHandle): void {
    try {
      const copy = this.npmContent.harvest(handle.agentPaths.home);
      if (copy.copied > 0 || copy.refused > 0) this.options.log?.('compute.local.npm_content_harvested', { agentId: handle.agent.agentId, revisionId: handle.revisionId, ...copy });
      if (copy.refused > 0) logLine(handle.paths, `npm cache: ${copy.refused} file(s) named by a pinned digest whose content does not match it were not shared`);
    } catch (error) {
      this.options.log?.('compute.local.npm_content_failed', { agentId: handle.agent.agentId, error: String(error) });
    }
  }

  /**
   * The worker's go to a candidate holding in `prepared`: Recreate now — the Agent's other runtimes
   * stop, then the candidate is told to go on (its stale uninstall, then its gateway), so two
   * gateways never serve the Agent. A candidate that ended or no longer holds stops nothing.
   * Idempotent: a go that did not arrive is given again at the worker's next look.
   */
  async proceedRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    await this.supervisor.locked(agent.agentId, signal, async () => {
      const handle = this.supervisor.get(agent.agentId, revisionId);
      if (!handle?.holdsGateway) return;
      const seen = await this.supervisor.observe(handle, signal);
      if (seen.kind !== 'starting' || !seen.prepared) return;
      await this.stopOthers(agent.agentId, revisionId, signal);
      if (!(await this.supervisor.proceed(handle, signal))) return;
      logLine(handle.paths, "prepared: the Agent's other runtimes are stopped, told to proceed");
      this.options.log?.('compute.local.candidate_proceeds', { agentId: agent.agentId, revisionId });
    });
  }

  /**
   * Starts a prepared revision. A refused start fails this prepare with the refusal's code; a
   * control plane that did not answer fails the call, so the worker retries it (either way the
   * worker brings the active revision back). Under the Agent's lock.
   */
  private async firstStart(handle: RuntimeHandle): Promise<PrepareResult | null> {
    try {
      await this.supervisor.spawn(handle);
      return null;
    } catch (error) {
      if (this.supervisor.closed) throw error;
      const failure = this.supervisor.recordStartFailure(handle, error);
      if (!isRefusal(error)) throw error;
      return failedPrepare(failure.code, failure.message);
    }
  }

  awaitStatusChange(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    return this.supervisor.statusChanges.awaitChange(keyOf(agent.agentId, revisionId), signal);
  }

  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    await this.supervisor.locked(revision.agentId, signal, async () => {
      const handle = this.supervisor.get(revision.agentId, revision.id) ?? this.handleFromDisk(revision.agentId, revision.id);
      if (!handle) throw new Error('The revision was not prepared on this host.');
      await this.stopOthers(revision.agentId, revision.id, signal);
      this.active.set(revision.agentId, revision.id);
      await this.supervisor.activate(handle);
    });
  }

  /**
   * The pointer's revision runs again from its staged files, under the Agent's lock; this process
   * adopts it as the Agent's active revision (after a restart, that is how it learns it). A
   * revision not staged on this host is skipped: the worker's next deploy stages it.
   */
  async restoreRevision(revision: AgentRevision, _manifest: RuntimeManifest, cause: RestoreCause, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    await this.supervisor.locked(revision.agentId, signal, async () => {
      this.active.set(revision.agentId, revision.id);
      const why =
        cause.kind === 'candidate-failed'
          ? `brought back after candidate ${cause.revisionId} failed`
          : cause.kind === 'check'
            ? 'started again: the periodic check found nothing of the Agent running'
            : 'recovered: the database names this revision active';
      const ran = await this.runActive(revision.agentId, revision.namespaceId, why);
      if (ran === 'not-staged') this.options.log?.('compute.local.recovery_skipped', { agentId: revision.agentId, revisionId: revision.id, reason: 'REVISION_NOT_STAGED' });
      if (ran === 'started') {
        this.options.log?.(...restoreEvent('local', revision, cause));
      }
    });
  }

  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    await this.supervisor.locked(agent.agentId, signal, async () => {
      // The Agent runs one runtime at a time: a candidate still preparing stops with it.
      const doomed = this.supervisor.forAgent(agent.agentId).filter((h) => h.revisionId === revisionId || h.role === 'candidate');
      if (this.active.get(agent.agentId) === revisionId) this.active.delete(agent.agentId);
      await this.supervisor.stopAll(doomed, signal);
      logLine(paths, 'stopped');
    });
  }

  async retireRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    revisionPaths(this.root, agent.agentId, revisionId);
    await this.supervisor.locked(agent.agentId, signal, async () => {
      // Files stay: a retired revision remains stored.
      if (this.active.get(agent.agentId) === revisionId) this.active.delete(agent.agentId);
      await this.supervisor.stopAll(
        this.supervisor.forAgent(agent.agentId).filter((h) => h.revisionId === revisionId),
        signal,
      );
    });
  }

  /** The deleted Agent's runtimes (stopped if any still runs) and its files: `agents/<agentId>` (remove-agent.ts). */
  async removeAgent(agent: AgentRef, { signal }: ComputeContext): Promise<RemovedResource[]> {
    signal.throwIfAborted();
    const paths = agentPaths(this.root, agent.agentId);
    return this.supervisor.locked(agent.agentId, signal, async () => {
      this.active.delete(agent.agentId);
      await this.supervisor.stopAll(this.supervisor.forAgent(agent.agentId), signal);
      this.deliveredValues.forgetAgent(agent.agentId);
      return removeAgentFiles(this.root, paths.dir);
    });
  }

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    revisionPaths(this.root, agent.agentId, revisionId);
    const handle = this.supervisor.get(agent.agentId, revisionId);
    if (!handle) return noRuntime();
    const seen = handle.state;
    const running = isLive(seen);
    const probe = AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    const observation = running ? await this.supervisor.observe(handle, probe).catch(() => null) : null;
    const serving = observation?.kind === 'ready' && (await this.supervisor.gatewayServes(handle, observation.gatewayPort, probe).catch(() => false));
    // The same agreement the startup watches wait for: this start served (a no-op unless still starting).
    if (serving && isLive(seen)) this.supervisor.markRunning(handle, seen.proc);
    const now = handle.state;
    const live = running && isLive(now);
    return describeObserved(running, observation, serving, {
      startupId: live ? (now.endpoint?.startupId ?? null) : null,
      restarts: handle.restarts,
      deliveredSecrets: live ? [...handle.deliveredSecrets] : [],
      lastFailureCode: handle.lastFailureCode,
    });
  }

  /** The message goes to the revision's gateway on its loopback port, with the token only this driver derives. */
  async sendMessage(agent: AgentRef, revisionId: string, message: GatewayMessage, signal: AbortSignal): Promise<GatewayReply> {
    revisionPaths(this.root, agent.agentId, revisionId);
    const handle = this.supervisor.get(agent.agentId, revisionId);
    if (!handle || !isLive(handle.state)) return { kind: 'not-serving', state: handle ? describeIdle(handle.state.kind) : 'this OCC runs no process of it' };
    const observation = await this.supervisor
      .observe(handle, AbortSignal.any([signal, AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)]))
      .catch(() => null);
    if (observation?.kind !== 'ready') return notServingYet(observation);
    return relayToGateway({ port: observation.gatewayPort, token: this.token('gateway', revisionId) }, message, { redact: this.redactedValues(agent, revisionId), signal });
  }

  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    // The runtime never prints its tokens, but OpenClaw, npm and the gateway write to the same
    // log: whatever they print, a reader with Agent read must never see a token, nor a part of
    // one, so whole lines are redacted before they are cut to size.
    return tailLog(paths.logFile, tailLength(tail), lineRedactor(this.redactedValues(agent, revisionId)));
  }

  /** What no reader may see of a revision: its runtime tokens and the Secret values this process delivered to it. */
  private redactedValues(agent: AgentRef, revisionId: string): string[] {
    return [...TOKEN_LABELS.map((label) => this.token(label, revisionId)), ...this.deliveredValues.of(keyOf(agent.agentId, revisionId))];
  }

  // ---- handles, Recreate and bringing back -------------------------------------------------

  /** Stages the revision's files and returns its handle (a new candidate unless one is known). */
  private stage(revision: AgentRevision, manifest: RuntimeManifest): RuntimeHandle {
    const { paths, agentPaths: ap } = stageRevision(this.root, revision, manifest);
    const existing = this.supervisor.get(revision.agentId, revision.id);
    if (existing) return existing;
    const handle = newHandle({ namespaceId: revision.namespaceId, agentId: revision.agentId }, revision.id, paths, ap, revision.plugins, manifest.harness);
    this.supervisor.track(handle);
    return handle;
  }

  /** A handle for a revision staged earlier (after a restart, or activation without a prepare here). */
  private handleFromDisk(agentId: string, revisionId: string): RuntimeHandle | null {
    const known = this.supervisor.get(agentId, revisionId);
    if (known) return known;
    const paths = revisionPaths(this.root, agentId, revisionId);
    const manifest = stagedManifest(paths, agentId, revisionId);
    if (!manifest) return null;
    const handle = newHandle(
      { namespaceId: manifest.namespaceId, agentId },
      revisionId,
      paths,
      agentPaths(this.root, agentId),
      manifest.plugins?.selections ?? {},
      manifest.harness ?? 'openclaw',
    );
    this.supervisor.track(handle);
    return handle;
  }

  /** The Agent's runtimes besides `handle` that run or are about to run again. */
  private othersRunning(handle: RuntimeHandle): RuntimeHandle[] {
    return this.supervisor.forAgent(handle.agent.agentId).filter((h) => h !== handle && occupiesAgent(h.state));
  }

  private stopOthers(agentId: string, revisionId: string, signal: AbortSignal): Promise<void> {
    return this.supervisor.stopAll(
      this.supervisor.forAgent(agentId).filter((h) => h.revisionId !== revisionId),
      signal,
    );
  }

  /**
   * Starts the Agent's active revision (this driver's `active` entry) from its staged files,
   * unless something of the Agent already runs (Recreate) or it is not staged here for
   * `namespaceId` (null: whichever its staged manifest names). Re-authorized like every start; a
   * refusal is retried with backoff by the supervisor. Under the Agent's lock.
   */
  private async runActive(agentId: string, namespaceId: string | null, why: string): Promise<'started' | 'running' | 'not-staged'> {
    const active = this.active.get(agentId);
    if (!active || this.supervisor.closed) return 'running';
    if (this.supervisor.forAgent(agentId).some((h) => occupiesAgent(h.state))) return 'running';
    const handle = this.handleFromDisk(agentId, active);
    if (!handle || (namespaceId !== null && handle.agent.namespaceId !== namespaceId)) return 'not-staged';
    logLine(handle.paths, why);
    await this.supervisor.activate(handle);
    return 'started';
  }

  // ---- helpers -----------------------------------------------------------------------------

  /**
   * One start of `handle`, asked of the control plane: `spawn` runs inside its answer with the
   * runtime's whole environment and the delivered names; the values are never kept.
   */
  private async withStartEnvironment<T>(handle: RuntimeHandle, spawn: (environment: Record<string, string>, delivered: string[]) => T): Promise<T> {
    const authority = startAuthority(this.authority, this.id);
    const ref: RevisionRef = { namespaceId: handle.agent.namespaceId, agentId: handle.agent.agentId, revisionId: handle.revisionId };
    return authority.withStartEnvironment(ref, async ({ variables, harnessAuth }) => {
      this.deliveredValues.remember(handle.key, [...Object.values(variables), ...(harnessAuth ? [harnessAuth.value] : [])]);
      // `delivered` (the live view's deliveredSecrets) names the Configuration's variables only:
      // the codex_pat is the Agent's, and a start of a revision with one never happens without it.
      return spawn(this.environment(handle, variables, harnessAuth?.value), Object.keys(variables).sort());
    });
  }

  private environment(handle: RuntimeHandle, secrets: Readonly<Record<string, string>>, codexPat: string | undefined): Record<string, string> {
    return runtimeEnvironment({
      base: this.options.env ?? process.env,
      agent: handle.agentPaths,
      revision: handle.paths,
      statusToken: this.token('startup-status', handle.revisionId),
      gatewayToken: this.token('gateway', handle.revisionId),
      transportSecret: this.token('app-server-transport', handle.revisionId),
      catalog: this.options.catalog,
      npmRegistry: this.options.npmRegistry,
      unselectedPlugins: this.options.unselectedPlugins,
      codex: this.options.codex,
      network: this.options.network ?? {},
      secrets,
      codexPat,
      holdBeforeGateway: handle.role === 'candidate' && handle.holdsGateway,
      npmContent: this.npmContent.dir(),
    });
  }

  /**
   * The runtime's launch for `handle`: confined in its sandbox (the default), or as it is under
   * the development opt-out. Throws StartRefused when this host cannot confine it.
   */
  private async launchFor(handle: RuntimeHandle): Promise<PreparedLaunch> {
    const launch = this.options.launch();
    const nothing = { env: {}, close: async () => {} };
    if ((this.options.confinement ?? DEFAULT_CONFINEMENT) === 'none') {
      this.options.log?.('compute.local.unconfined', {
        agentId: handle.agent.agentId,
        revisionId: handle.revisionId,
        warning: `${CONFINEMENT_VARIABLE}=none: this Agent runs as OCC's own user and can read OCC's keys and database`,
      });
      logLine(handle.paths, `WARNING: not confined (${CONFINEMENT_VARIABLE}=none): this runtime can read everything OCC's user can`);
      return { launch, sandboxed: false, ...nothing };
    }
    this.sandboxProblem ??= (this.options.probeSandbox ?? probeSandbox)() ?? '';
    if (this.sandboxProblem !== '') {
      this.options.log?.('compute.local.confinement_unavailable', { agentId: handle.agent.agentId, reason: this.sandboxProblem });
      throw new StartRefused('RUNTIME_CONFINEMENT_UNAVAILABLE');
    }
    const root = join(handle.agentPaths.dir, 'sandbox-root');
    privateDir(root);
    const plan = sandboxPlan({
      root,
      bridgeDir: freshBridgeDirectory(handle.paths.dir),
      launch,
      agent: handle.agentPaths,
      revision: handle.paths,
      catalog: this.options.catalog,
      network: this.options.network ?? {},
      codex: this.options.codex,
      agentId: handle.agent.agentId,
      npmContent: this.npmContent.dir(),
    });
    const bridge = await openHostBridge({
      dir: plan.bridgeDir,
      sharedLoopbackPorts: this.sharedLoopbackPorts(),
      upstreamProxy: upstreamProxyOf(this.options.network ?? {}),
      record: (line) => logLine(handle.paths, line),
    });
    const proxy = bridge.proxy;
    const env = { ...bridge.env, ...withNetworkOverrides({}, { proxy }), ALL_PROXY: proxy, all_proxy: proxy };
    return { launch: sandboxCommand(plan, launch), sandboxed: true, env, close: () => bridge.close() };
  }

  /** Host loopback ports a confined runtime reaches: the operator's (OCC_LOCAL_SHARED_LOOPBACK_PORTS) and a loopback npm registry's. */
  private sharedLoopbackPorts(): number[] {
    return [...new Set([...(this.options.sharedLoopbackPorts ?? []), ...loopbackPortOf(this.options.npmRegistry)])];
  }

  private tokenKey(): Buffer {
    if (!this.key) {
      privateDir(this.root);
      this.key = loadDriverKey(this.root);
    }
    return this.key;
  }

  private token(label: TokenLabel, revisionId: string): string {
    return deriveToken(this.tokenKey(), label, revisionId);
  }
}
