import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { agentPaths, isAgentId, isRevisionId, privateDir, readIfExists, revisionPaths, writePrivateFile, type AgentPaths, type RevisionPaths } from './layout.ts';
import { tailLog } from './log-tail.ts';
import { runtimeEnvironment } from './runtime-env.ts';
import { logLine, reapStray, spawnRuntime, terminate, type ExitInfo, type LaunchCommand, type RunningProcess } from './runtime-process.ts';
import { fetchStartupStatus, judgeStatus, readEndpoint, type Endpoint, type Observation } from './startup-status.ts';
import { acquireSupervisorLock } from './supervisor-lock.ts';
import { deriveToken, loadDriverKey } from './tokens.ts';

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
  /** Restart delays after unexpected exits: base doubling to cap; reset once a start stayed up resetAfterMs. */
  backoff?: { baseMs: number; capMs: number; resetAfterMs: number };
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

/** One revision's runtime as this process supervises it. */
interface Handle {
  key: string;
  agent: AgentRef;
  revisionId: string;
  paths: RevisionPaths;
  agentPaths: AgentPaths;
  selections: ReadonlySet<string>;
  proc: RunningProcess | null;
  endpoint: Endpoint | null;
  /** Restarted with backoff when it exits unexpectedly (the active revision). */
  supervised: boolean;
  /** An unsupervised runtime's unexpected exit, reported by the next prepare. */
  crashed: ExitInfo | null;
  restarts: number;
  consecutiveCrashes: number;
  timer: NodeJS.Timeout | null;
  lastPolledAt: number;
}

const PHASE: Record<Observation['kind'], RuntimeDescription['phase']> = { starting: 'preparing', untrusted: null, failed: 'failed', ready: 'ready' };
const POLL_MS = 100;
const FAILURE_MESSAGE = 'The runtime failed to start.';

const describeExit = (info: ExitInfo) => (info.signal ? `signal ${info.signal}` : `code ${String(info.code)}`);

export function createLocalComputeDriver(options: LocalComputeOptions): LocalComputeDriver {
  return new LocalCompute(options);
}

class LocalCompute implements LocalComputeDriver {
  readonly id = 'local';
  private readonly root: string;
  private readonly handles = new Map<string, Handle>();
  private readonly locks = new Map<string, Promise<void>>();
  private key: Buffer | null = null;
  private recovered: Promise<void> = Promise.resolve();
  private releaseLock: (() => void) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private closing = false;
  private readonly grace: number;
  private readonly backoff: { baseMs: number; capMs: number; resetAfterMs: number };

  constructor(private readonly options: LocalComputeOptions) {
    this.root = options.rootDir;
    this.grace = options.stopGraceMs ?? 25_000;
    this.backoff = options.backoff ?? { baseMs: 1_000, capMs: 30_000, resetAfterMs: 60_000 };
  }

  validateRevision(revision: AgentRevision): void {
    if (revision.harness !== 'openclaw') throw new ComputeValidationError('HARNESS_UNSUPPORTED', 'The local ComputeDriver runs the OpenClaw harness only.');
    if (!isAgentId(revision.agentId) || !isRevisionId(revision.id)) throw new ComputeValidationError('INVALID_REVISION', 'The revision ids are not well-formed.');
  }

  // ---- lifecycle -------------------------------------------------------------------------

  start(): void {
    if (this.releaseLock || this.closing) return;
    privateDir(this.root);
    this.releaseLock = acquireSupervisorLock(this.root);
    this.tokenKey();
    this.recovered = this.recover().catch((error) => this.options.log?.('compute.local.recovery_failed', { error: String(error) }));
    this.sweeper = setInterval(() => void this.sweepCandidates(), Math.min(30_000, this.options.candidateIdleMs ?? 600_000)).unref();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.recovered;
    const all = [...this.handles.values()];
    this.handles.clear();
    // `active` files stay: a restarted OCC brings those runtimes back.
    await Promise.all(all.map((h) => this.stopHandle(h)));
    this.releaseLock?.();
  }

  /** Brings back every Agent's active revision; first stops runtimes a killed OCC left behind. */
  private async recover(): Promise<void> {
    const agentsDir = join(this.root, 'agents');
    const agentIds = existsSync(agentsDir) ? readdirSync(agentsDir).filter(isAgentId) : [];
    for (const agentId of agentIds) {
      try {
        const ap = agentPaths(this.root, agentId);
        const revisionIds = existsSync(ap.revisions) ? readdirSync(ap.revisions).filter(isRevisionId) : [];
        for (const revisionId of revisionIds) await reapStray(revisionPaths(this.root, agentId, revisionId), this.grace);
        const active = (readIfExists(ap.active) ?? '').trim();
        if (!isRevisionId(active) || this.closing) continue;
        const handle = this.handleFromDisk(agentId, active);
        if (!handle) continue;
        handle.supervised = true;
        this.spawn(handle);
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
    return this.locked(revision.agentId, signal, async () => {
      const handle = this.stage(revision, manifest);
      // Recreate: the Agent's other runtime (its old gateway) stops before this one installs.
      await this.stopOthers(revision.agentId, revision.id, signal);
      handle.lastPolledAt = Date.now();
      if (!handle.proc && !handle.timer && !handle.crashed) this.spawn(handle);
      return this.watch(handle, signal);
    });
  }

  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    await this.locked(revision.agentId, signal, async () => {
      const handle = this.handles.get(keyOf(revision.agentId, revision.id)) ?? this.handleFromDisk(revision.agentId, revision.id);
      if (!handle) throw new Error('The revision was not prepared on this host.');
      await this.stopOthers(revision.agentId, revision.id, signal);
      handle.supervised = true;
      handle.crashed = null;
      if (!handle.proc && !handle.timer) this.spawn(handle);
      writePrivateFile(handle.agentPaths.active, `${revision.id}\n`);
    });
  }

  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    await this.locked(agent.agentId, signal, async () => {
      // The Agent runs one runtime at a time: a candidate still preparing stops with it.
      const doomed = this.agentHandles(agent.agentId).filter((h) => h.revisionId === revisionId || !h.supervised);
      await this.stopAll(doomed, signal);
      this.clearActive(agent.agentId, revisionId);
      logLine(paths, 'stopped');
    });
  }

  async retireRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    revisionPaths(this.root, agent.agentId, revisionId);
    await this.locked(agent.agentId, signal, async () => {
      // Files stay: a retired revision remains stored.
      await this.stopAll(this.agentHandles(agent.agentId).filter((h) => h.revisionId === revisionId), signal);
      this.clearActive(agent.agentId, revisionId);
    });
  }

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    revisionPaths(this.root, agent.agentId, revisionId);
    const handle = this.handles.get(keyOf(agent.agentId, revisionId));
    if (!handle) return { running: false, phase: null, startupId: null, restarts: 0 };
    const running = handle.proc !== null;
    const observation = running ? await this.observe(handle, AbortSignal.timeout(this.options.probeTimeoutMs ?? 2_000)).catch(() => null) : null;
    return {
      running,
      phase: observation ? PHASE[observation.kind] : null,
      startupId: running ? (handle.endpoint?.startupId ?? null) : null,
      restarts: handle.restarts,
    };
  }

  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const paths = revisionPaths(this.root, agent.agentId, revisionId);
    const logs = tailLog(paths.logFile, Math.min(1000, Math.max(1, Math.floor(tail))));
    // The runtime never prints its tokens, but OpenClaw, npm and the gateway write to the same
    // log: whatever they print, a reader with Agent read must never see a token.
    const tokens = [this.token('startup-status', revisionId), this.token('gateway', revisionId)];
    return { ...logs, lines: logs.lines.map((line) => tokens.reduce((text, token) => text.replaceAll(token, '[redacted]'), line)) };
  }

  // ---- preparing and observing -------------------------------------------------------------

  /** The revision directory, its manifest (rewritten only if it changed) and the Agent's directories. */
  private stage(revision: AgentRevision, manifest: RuntimeManifest): Handle {
    const ap = agentPaths(this.root, revision.agentId);
    const paths = revisionPaths(this.root, revision.agentId, revision.id);
    privateDir(this.root);
    privateDir(ap.dir);
    // The Agent's state is created once and otherwise left alone (P-5).
    if (!existsSync(ap.state)) mkdirSync(ap.state, { mode: 0o700 });
    privateDir(ap.home);
    privateDir(ap.tmp);
    privateDir(ap.revisions);
    privateDir(paths.dir);
    privateDir(paths.logs);
    const content = `${JSON.stringify(manifest, null, 2)}\n`;
    if (readIfExists(paths.manifest) !== content) writePrivateFile(paths.manifest, content);
    const key = keyOf(revision.agentId, revision.id);
    const existing = this.handles.get(key);
    if (existing) return existing;
    const handle = newHandle({ namespaceId: revision.namespaceId, agentId: revision.agentId }, revision.id, paths, ap, Object.keys(revision.plugins));
    this.handles.set(key, handle);
    return handle;
  }

  /** A handle for a revision staged earlier (after a restart, or activation without a prepare here). */
  private handleFromDisk(agentId: string, revisionId: string): Handle | null {
    const key = keyOf(agentId, revisionId);
    const known = this.handles.get(key);
    if (known) return known;
    const paths = revisionPaths(this.root, agentId, revisionId);
    let manifest: RuntimeManifest;
    try {
      manifest = JSON.parse(readIfExists(paths.manifest) ?? 'null') as RuntimeManifest;
    } catch {
      return null;
    }
    if (manifest?.agentId !== agentId || manifest.revisionId !== revisionId) return null;
    const handle = newHandle({ namespaceId: manifest.namespaceId, agentId }, revisionId, paths, agentPaths(this.root, agentId), Object.keys(manifest.plugins?.selections ?? {}));
    this.handles.set(key, handle);
    return handle;
  }

  /** Watches a starting runtime for up to readyWaitMs, then answers what it found. */
  private async watch(handle: Handle, signal: AbortSignal): Promise<PrepareResult> {
    const deadline = Date.now() + (this.options.readyWaitMs ?? 2_000);
    for (;;) {
      if (handle.crashed) {
        // Exited before it was activated: this attempt failed; the next prepare starts afresh.
        this.handles.delete(handle.key);
        return { ready: false, runtimeFailure: { code: 'RUNTIME_EXITED', message: FAILURE_MESSAGE } };
      }
      let pendingReason = 'RUNTIME_RESTARTING';
      if (handle.proc) {
        const observation = await this.observe(handle, signal);
        if (observation.kind === 'failed') {
          await this.stopAll([handle], signal);
          return { ready: false, runtimeFailure: { code: observation.code, message: FAILURE_MESSAGE } };
        }
        if (observation.kind === 'ready') {
          if (await this.gatewayServes(handle, observation.gatewayPort, signal)) return { ready: true, warnings: observation.warnings };
          pendingReason = 'GATEWAY_STARTING';
        } else {
          pendingReason = observation.kind === 'untrusted' ? 'RUNTIME_STATUS_UNTRUSTED' : 'RUNTIME_STARTING';
        }
      }
      if (Date.now() + POLL_MS > deadline) return { ready: false, pendingReason };
      await sleep(POLL_MS, undefined, { signal });
    }
  }

  /** Reads the status of the process this driver started, and judges it. */
  private async observe(handle: Handle, signal: AbortSignal): Promise<Observation> {
    const proc = handle.proc;
    if (!proc) return { kind: 'starting' };
    handle.endpoint ??= readEndpoint(handle.paths.endpoint, proc.pid);
    const endpoint = handle.endpoint;
    if (!endpoint) return { kind: 'starting' };
    const read = await fetchStartupStatus(endpoint.statusPort, this.token('startup-status', handle.revisionId), signal, this.options.probeTimeoutMs ?? 2_000);
    if (handle.proc !== proc || read === 'unreachable') return { kind: 'starting' };
    if (read === 'malformed') return { kind: 'untrusted' };
    return judgeStatus(read.body, { revisionId: handle.revisionId, startupId: endpoint.startupId, selections: handle.selections });
  }

  private async gatewayServes(handle: Handle, port: number, signal: AbortSignal): Promise<boolean> {
    try {
      const bounded = AbortSignal.any([signal, AbortSignal.timeout(this.options.probeTimeoutMs ?? 2_000)]);
      return (await this.options.probeGateway(port, this.token('gateway', handle.revisionId), bounded)) === true;
    } catch {
      signal.throwIfAborted();
      return false;
    }
  }

  // ---- processes ---------------------------------------------------------------------------

  private spawn(handle: Handle): void {
    if (this.closing) throw new Error('The local ComputeDriver is closed.');
    rmSync(handle.paths.endpoint, { force: true });
    const env = runtimeEnvironment({
      base: this.options.env ?? process.env,
      agent: handle.agentPaths,
      revision: handle.paths,
      statusToken: this.token('startup-status', handle.revisionId),
      gatewayToken: this.token('gateway', handle.revisionId),
      catalog: this.options.catalog,
      npmRegistry: this.options.npmRegistry,
      network: this.options.network ?? {},
    });
    const proc = spawnRuntime(this.options.launch(), env, handle.paths);
    handle.proc = proc;
    handle.endpoint = null;
    handle.crashed = null;
    logLine(handle.paths, `runtime started (pid ${proc.pid})`);
    void proc.exited.then((info) => this.exited(handle, proc, info));
  }

  /** An exit this driver did not ask for: restart the active revision with backoff; report a candidate's. */
  private exited(handle: Handle, proc: RunningProcess, info: ExitInfo): void {
    if (handle.proc !== proc) return;
    handle.proc = null;
    handle.endpoint = null;
    if (proc.pid > 0) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // The group is empty.
      }
    }
    logLine(handle.paths, `runtime exited unexpectedly (${describeExit(info)})`);
    if (this.closing || this.handles.get(handle.key) !== handle) return;
    if (!handle.supervised) {
      handle.crashed = info;
      return;
    }
    const upFor = Date.now() - proc.startedAt;
    handle.consecutiveCrashes = upFor >= this.backoff.resetAfterMs ? 1 : handle.consecutiveCrashes + 1;
    const delay = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** (handle.consecutiveCrashes - 1));
    handle.restarts += 1;
    logLine(handle.paths, `restarting in ${delay} ms (restart ${handle.restarts})`);
    this.options.log?.('compute.local.restart_scheduled', { agentId: handle.agent.agentId, revisionId: handle.revisionId, delayMs: delay });
    this.scheduleRestartAttempt(handle, delay);
  }

  /** Respawns a supervised runtime after `delay`; if the Agent's lock stays busy, tries again later. */
  private scheduleRestartAttempt(handle: Handle, delay: number): void {
    handle.timer = setTimeout(() => {
      handle.timer = null;
      this.locked(handle.agent.agentId, AbortSignal.timeout(60_000), async () => {
        if (!this.closing && handle.supervised && !handle.proc && this.handles.get(handle.key) === handle) this.spawn(handle);
      }).catch((error) => {
        this.options.log?.('compute.local.restart_failed', { error: String(error) });
        // Never give up on the active runtime: the lock may be held by a long stop.
        if (!this.closing && handle.supervised && !handle.proc && this.handles.get(handle.key) === handle) this.scheduleRestartAttempt(handle, this.backoff.capMs);
      });
    }, delay);
    handle.timer.unref();
  }

  private async stopHandle(handle: Handle): Promise<void> {
    handle.supervised = false;
    if (handle.timer) clearTimeout(handle.timer);
    handle.timer = null;
    const proc = handle.proc;
    handle.proc = null;
    handle.endpoint = null;
    if (!proc) return;
    logLine(handle.paths, `stopping runtime (pid ${proc.pid})`);
    const info = await terminate(proc, this.grace);
    logLine(handle.paths, `runtime stopped (${describeExit(info)})`);
  }

  /** Stops these runtimes and forgets them; a stop already under way finishes even if `signal` aborts. */
  private async stopAll(handles: Handle[], signal: AbortSignal): Promise<void> {
    for (const h of handles) this.handles.delete(h.key);
    const stopping = Promise.all(handles.map((h) => this.stopHandle(h)));
    if (handles.length === 0) return;
    signal.throwIfAborted();
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([stopping, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private stopOthers(agentId: string, revisionId: string, signal: AbortSignal): Promise<void> {
    return this.stopAll(this.agentHandles(agentId).filter((h) => h.revisionId !== revisionId), signal);
  }

  private agentHandles(agentId: string): Handle[] {
    return [...this.handles.values()].filter((h) => h.agent.agentId === agentId);
  }

  private clearActive(agentId: string, revisionId: string): void {
    const path = agentPaths(this.root, agentId).active;
    if ((readIfExists(path) ?? '').trim() === revisionId) rmSync(path, { force: true });
  }

  /** Candidates nobody prepares any more (a deploy stopped or superseded mid-flight) are stopped. */
  private async sweepCandidates(): Promise<void> {
    const idle = this.options.candidateIdleMs ?? 600_000;
    const now = Date.now();
    for (const h of [...this.handles.values()]) {
      if (h.supervised || !h.proc || now - h.lastPolledAt < idle) continue;
      // Re-checked under the lock: an activation may have adopted this candidate meanwhile.
      await this.locked(h.agent.agentId, AbortSignal.timeout(60_000), async () => {
        if (h.supervised || !h.proc || this.handles.get(h.key) !== h || Date.now() - h.lastPolledAt < idle) return;
        await this.stopAll([h], AbortSignal.timeout(60_000));
      }).catch(() => {});
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private tokenKey(): Buffer {
    if (!this.key) {
      privateDir(this.root);
      this.key = loadDriverKey(this.root);
    }
    return this.key;
  }

  private token(label: 'startup-status' | 'gateway', revisionId: string): string {
    return deriveToken(this.tokenKey(), label, revisionId);
  }

  /** One operation per Agent at a time (worker calls and supervised restarts), after recovery. */
  private async locked<T>(agentId: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(agentId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.locks.set(agentId, tail);
    try {
      await previous;
      await this.recovered;
      signal.throwIfAborted();
      return await fn();
    } finally {
      release();
      if (this.locks.get(agentId) === tail) this.locks.delete(agentId);
    }
  }
}

const keyOf = (agentId: string, revisionId: string) => `${agentId}/${revisionId}`;

function newHandle(agent: AgentRef, revisionId: string, paths: RevisionPaths, ap: AgentPaths, selections: string[]): Handle {
  return {
    key: keyOf(agent.agentId, revisionId),
    agent,
    revisionId,
    paths,
    agentPaths: ap,
    selections: new Set(selections),
    proc: null,
    endpoint: null,
    supervised: false,
    crashed: null,
    restarts: 0,
    consecutiveCrashes: 0,
    timer: null,
    lastPolledAt: Date.now(),
  };
}
