import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import {
  ComputeValidationError,
  type AgentRef,
  type ComputeContext,
  type ComputeDriver,
  type PrepareResult,
  type RuntimeDescription,
  type RuntimeLogs,
} from '../../../core/ports/compute-driver.ts';
import { agentPaths, isAgentId, isRevisionId, privateDir, revisionPaths } from './layout.ts';
import { tailLog } from './log-tail.ts';
import { watchStartup } from './prepare-watch.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './restart-backoff.ts';
import { activeMarker, clearActiveMarker, stageRevision, stagedManifest, writeActiveMarker } from './revision-files.ts';
import { runtimeEnvironment } from './runtime-env.ts';
import { isLive, newHandle, occupiesAgent, type RuntimeHandle } from './runtime-handle.ts';
import { logLine, reapStray, type LaunchCommand } from './runtime-process.ts';
import type { Observation } from './startup-status.ts';
import { RuntimeSupervisor } from './supervisor.ts';
import { acquireSupervisorLock } from './supervisor-lock.ts';
import { deriveToken, loadDriverKey, type TokenLabel } from './tokens.ts';

export type { LaunchCommand } from './runtime-process.ts';

export interface LocalComputeOptions {
  /** Everything the driver keeps lives here (composition: `<dataDir>/compute/local`). */
  rootDir: string;
  /** How to start a runtime process (`runtimeLaunchCommand` from `@occ/runtime/launch`). */
  launch: () => LaunchCommand;
  /** Whether the gateway serves (`probeGatewayReady` from `@occ/runtime/gateway-probe`). */
  probeGateway: (port: number, token: string, signal: AbortSignal) => Promise<boolean>;
  /** Passed to the runtime as OCC_RUNTIME_CATALOG / OCC_RUNTIME_NPM_REGISTRY. */
  catalog?: string | undefined;
  npmRegistry?: string | undefined;
  /** The runtimes' CA, proxy and npm variables (`runtimeNetworkSettings`, network-settings.ts); default none. */
  network?: Readonly<Record<string, string>>;
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
  /** A candidate no prepare asked about for this long is stopped (default 10 min). */
  candidateIdleMs?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface LocalComputeDriver extends ComputeDriver {
  describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription>;
  readLogs(agent: AgentRef, revisionId: string, options: { tail: number }): Promise<RuntimeLogs>;
  start(): void;
  close(): Promise<void>;
}

const PHASE: Record<Observation['kind'], RuntimeDescription['phase']> = { starting: 'preparing', untrusted: null, failed: 'failed', ready: 'ready' };
/** How long background work (restart, bring-back, sweep) waits for an Agent's lock. */
const BACKGROUND_LOCK_WAIT_MS = 60_000;

export function createLocalComputeDriver(options: LocalComputeOptions): LocalComputeDriver {
  return new LocalCompute(options);
}

/**
 * The ComputeDriver port over the supervisor: Recreate (one runtime per Agent at a time), the
 * `active` marker, staging files, and bringing the active revision back when a candidate fails.
 */
class LocalCompute implements LocalComputeDriver {
  readonly id = 'local';
  private readonly root: string;
  private readonly supervisor: RuntimeSupervisor;
  private key: Buffer | null = null;
  private recovered: Promise<void> = Promise.resolve();
  private releaseLock: (() => void) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: LocalComputeOptions) {
    this.root = options.rootDir;
    this.supervisor = new RuntimeSupervisor({
      launch: options.launch,
      environment: (handle) => this.environment(handle),
      probeGateway: options.probeGateway,
      token: (label, revisionId) => this.token(label, revisionId),
      graceMs: options.stopGraceMs ?? 25_000,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      probeTimeoutMs: options.probeTimeoutMs ?? 2_000,
      onCandidateCrashed: (handle) => this.candidateCrashed(handle),
      log: options.log,
    });
  }

  validateRevision(revision: AgentRevision): void {
    if (revision.harness !== 'openclaw') throw new ComputeValidationError('HARNESS_UNSUPPORTED', 'The local ComputeDriver runs the OpenClaw harness only.');
    if (!isAgentId(revision.agentId) || !isRevisionId(revision.id)) throw new ComputeValidationError('INVALID_REVISION', 'The revision ids are not well-formed.');
  }

  // ---- lifecycle -------------------------------------------------------------------------

  start(): void {
    if (this.releaseLock || this.closed) return;
    privateDir(this.root);
    this.releaseLock = acquireSupervisorLock(this.root);
    this.tokenKey();
    this.recovered = this.recover().catch((error) => this.options.log?.('compute.local.recovery_failed', { error: String(error) }));
    this.supervisor.holdUntil(this.recovered);
    this.sweeper = setInterval(() => void this.sweepCandidates(), Math.min(30_000, this.options.candidateIdleMs ?? 600_000)).unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    // `active` files stay: a restarted OCC brings those runtimes back.
    await this.supervisor.close();
    this.releaseLock?.();
  }

  /** Brings back every Agent's active revision; first stops runtimes a killed OCC left behind. */
  private async recover(): Promise<void> {
    const agentsDir = join(this.root, 'agents');
    const agentIds = existsSync(agentsDir) ? readdirSync(agentsDir).filter(isAgentId) : [];
    const grace = this.options.stopGraceMs ?? 25_000;
    for (const agentId of agentIds) {
      try {
        const ap = agentPaths(this.root, agentId);
        const revisionIds = existsSync(ap.revisions) ? readdirSync(ap.revisions).filter(isRevisionId) : [];
        for (const revisionId of revisionIds) await reapStray(revisionPaths(this.root, agentId, revisionId), grace);
        const active = activeMarker(ap);
        if (!active || this.supervisor.closed) continue;
        const handle = this.handleFromDisk(agentId, active);
        if (!handle) continue;
        this.supervisor.activate(handle);
        this.options.log?.('compute.local.recovered', { agentId, revisionId: active });
      } catch (error) {
        this.options.log?.('compute.local.recovery_failed', { agentId, error: String(error) });
      }
    }
  }

  // ---- the port ----------------------------------------------------------------------------

  async prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, { signal }: ComputeContext): Promise<PrepareResult> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    if (manifest.revisionId !== revision.id || manifest.agentId !== revision.agentId || manifest.namespaceId !== revision.namespaceId) {
      throw new Error('The runtime manifest does not describe this revision.');
    }
    return this.supervisor.locked(revision.agentId, signal, async () => {
      const handle = this.stage(revision, manifest);
      handle.lastPolledAt = Date.now();
      // A crashed candidate is only reported: the active runtime, brought back meanwhile, stays up.
      if (handle.state.kind !== 'crashed') {
        // Recreate: the Agent's other runtime (its old gateway) stops before this one installs.
        await this.stopOthers(revision.agentId, revision.id, signal);
        if (handle.state.kind === 'staged' || handle.state.kind === 'stopped') this.supervisor.spawn(handle);
      }
      const result = await watchStartup(this.supervisor, handle, signal, this.options.readyWaitMs ?? 2_000);
      if (result.state === 'failed' && handle.role === 'candidate') this.bringBackActive(revision.agentId, revision.id);
      return result;
    });
  }

  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    await this.supervisor.locked(revision.agentId, signal, async () => {
      const handle = this.supervisor.get(revision.agentId, revision.id) ?? this.handleFromDisk(revision.agentId, revision.id);
      if (!handle) throw new Error('The revision was not prepared on this host.');
      await this.stopOthers(revision.agentId, revision.id, signal);
      this.supervisor.activate(handle);
      writeActiveMarker(handle.agentPaths, revision.id);
    });
  }

  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    await this.supervisor.locked(agent.agentId, signal, async () => {
      // The Agent runs one runtime at a time: a candidate still preparing stops with it.
      const doomed = this.supervisor.forAgent(agent.agentId).filter((h) => h.revisionId === revisionId || h.role === 'candidate');
      await this.supervisor.stopAll(doomed, signal);
      clearActiveMarker(agentPaths(this.root, agent.agentId), revisionId);
      logLine(paths, 'stopped');
    });
  }

  async retireRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    revisionPaths(this.root, agent.agentId, revisionId);
    await this.supervisor.locked(agent.agentId, signal, async () => {
      // Files stay: a retired revision remains stored.
      await this.supervisor.stopAll(this.supervisor.forAgent(agent.agentId).filter((h) => h.revisionId === revisionId), signal);
      clearActiveMarker(agentPaths(this.root, agent.agentId), revisionId);
    });
  }

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    revisionPaths(this.root, agent.agentId, revisionId);
    const handle = this.supervisor.get(agent.agentId, revisionId);
    if (!handle) return { running: false, phase: null, startupId: null, restarts: 0 };
    const running = isLive(handle.state);
    const observation = running ? await this.supervisor.observe(handle, AbortSignal.timeout(this.options.probeTimeoutMs ?? 2_000)).catch(() => null) : null;
    const now = handle.state;
    return {
      running,
      phase: observation ? PHASE[observation.kind] : null,
      startupId: running && isLive(now) ? (now.endpoint?.startupId ?? null) : null,
      restarts: handle.restarts,
    };
  }

  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    // The runtime never prints its tokens, but OpenClaw, npm and the gateway write to the same
    // log: whatever they print, a reader with Agent read must never see a token, nor a part of
    // one, so whole lines are redacted before they are cut to size.
    const tokens = [this.token('startup-status', revisionId), this.token('gateway', revisionId)];
    const redact = (line: string) => tokens.reduce((text, token) => text.replaceAll(token, '[redacted]'), line);
    return tailLog(paths.logFile, Math.min(1000, Math.max(1, Math.floor(tail))), redact);
  }

  // ---- handles, Recreate and bringing back -------------------------------------------------

  /** Stages the revision's files and returns its handle (a new candidate unless one is known). */
  private stage(revision: AgentRevision, manifest: RuntimeManifest): RuntimeHandle {
    const { paths, agentPaths: ap } = stageRevision(this.root, revision, manifest);
    const existing = this.supervisor.get(revision.agentId, revision.id);
    if (existing) return existing;
    const handle = newHandle({ namespaceId: revision.namespaceId, agentId: revision.agentId }, revision.id, paths, ap, revision.plugins);
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
    const handle = newHandle({ namespaceId: manifest.namespaceId, agentId }, revisionId, paths, agentPaths(this.root, agentId), manifest.plugins?.selections ?? {});
    this.supervisor.track(handle);
    return handle;
  }

  private stopOthers(agentId: string, revisionId: string, signal: AbortSignal): Promise<void> {
    return this.supervisor.stopAll(this.supervisor.forAgent(agentId).filter((h) => h.revisionId !== revisionId), signal);
  }

  /**
   * A candidate failed before activation: the revision this driver last activated runs again
   * (same revision, same Agent state, no pointer change), unless something of the Agent already
   * runs, so Recreate still holds. Under the Agent's lock.
   */
  private bringBackActive(agentId: string, failedRevisionId: string): void {
    const active = activeMarker(agentPaths(this.root, agentId));
    if (!active || active === failedRevisionId || this.supervisor.closed) return;
    if (this.supervisor.forAgent(agentId).some((h) => occupiesAgent(h.state))) return;
    const handle = this.handleFromDisk(agentId, active);
    if (!handle) return;
    this.supervisor.activate(handle);
    logLine(handle.paths, `brought back after candidate ${failedRevisionId} failed`);
    this.options.log?.('compute.local.active_restored', { agentId, revisionId: active, failedRevisionId });
  }

  /** A candidate's runtime exited on its own: bring the active one back now, not at the next prepare. */
  private candidateCrashed(handle: RuntimeHandle): void {
    const agentId = handle.agent.agentId;
    void this.supervisor
      .locked(agentId, AbortSignal.timeout(BACKGROUND_LOCK_WAIT_MS), async () => {
        if (handle.state.kind === 'crashed' && this.supervisor.isTracked(handle)) this.bringBackActive(agentId, handle.revisionId);
      })
      .catch((error) => this.options.log?.('compute.local.restore_failed', { agentId, error: String(error) }));
  }

  /** Candidates nobody prepares any more (a deploy stopped or superseded mid-flight) are stopped. */
  private async sweepCandidates(): Promise<void> {
    const idle = this.options.candidateIdleMs ?? 600_000;
    const stale = (h: RuntimeHandle) => h.role === 'candidate' && isLive(h.state) && Date.now() - h.lastPolledAt >= idle;
    for (const h of this.supervisor.all().filter(stale)) {
      // Re-checked under the lock: an activation may have adopted this candidate meanwhile.
      await this.supervisor
        .locked(h.agent.agentId, AbortSignal.timeout(BACKGROUND_LOCK_WAIT_MS), async () => {
          if (!stale(h) || !this.supervisor.isTracked(h)) return;
          await this.supervisor.stopAll([h], AbortSignal.timeout(BACKGROUND_LOCK_WAIT_MS));
          this.bringBackActive(h.agent.agentId, h.revisionId);
        })
        .catch(() => {});
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private environment(handle: RuntimeHandle): Record<string, string> {
    return runtimeEnvironment({
      base: this.options.env ?? process.env,
      agent: handle.agentPaths,
      revision: handle.paths,
      statusToken: this.token('startup-status', handle.revisionId),
      gatewayToken: this.token('gateway', handle.revisionId),
      catalog: this.options.catalog,
      npmRegistry: this.options.npmRegistry,
      network: this.options.network ?? {},
    });
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
