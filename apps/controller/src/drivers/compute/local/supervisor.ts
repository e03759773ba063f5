import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { signalProcessGroup } from '@occ/host-io/process-group';
import { KeyedMutex } from '../runtime-contract/keyed-mutex.ts';
import { nextRestart, type BackoffPolicy } from '../runtime-contract/restart-backoff.ts';
import { isLive, keyOf, type RuntimeHandle } from './runtime-handle.ts';
import { logLine, spawnRuntime, terminate, type ExitInfo, type LaunchCommand, type RunningProcess } from './runtime-process.ts';
import { describeStartFailure, startFailureOf, type StartFailure } from '../runtime-contract/start-refusal.ts';
import { readEndpoint } from './endpoint.ts';
import { fetchStartupStatus, observeStatus, requestProceed, type Observation } from '../runtime-contract/startup-status.ts';
import { StatusChanges } from '../runtime-contract/status-changes.ts';
import type { TokenLabel } from '../runtime-contract/driver-key.ts';
import { gatewayServes, type GatewayProbe } from '../runtime-contract/prepare-watch.ts';

/** A runtime's launch: the command, whether it is confined, what it adds to the environment, and what to release when the process exits. */
export interface PreparedLaunch {
  launch: LaunchCommand;
  sandboxed: boolean;
  env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export interface SupervisorOptions {
  /** The launch of `handle`'s runtime: how, confined or not, with what added to its environment (throws StartRefused when it cannot be confined). */
  launch: (handle: RuntimeHandle) => Promise<PreparedLaunch>;
  /**
   * Runs `spawn` inside one authorized start of `handle`: with the runtime's whole environment
   * (the Secrets the control plane delivers for this start included) and the delivered names.
   * Throws when the start is refused (RuntimeStartDenied, StartRefused) or cannot be authorized.
   */
  withStartEnvironment<T>(handle: RuntimeHandle, spawn: (environment: Record<string, string>, delivered: string[]) => T): Promise<T>;
  probeGateway: GatewayProbe;
  token: (label: TokenLabel, revisionId: string) => string;
  graceMs: number;
  backoff: BackoffPolicy;
  probeTimeoutMs: number;
  log?: ((event: string, fields: Record<string, unknown>) => void) | undefined;
}

/** How often an active runtime's startup is checked while nobody prepares it. */
const STARTUP_POLL_MS = 250;
/** How long a supervised restart waits for its Agent's lock before it tries again later. */
const RESTART_LOCK_WAIT_MS = 60_000;
const CLOSED = 'The local ComputeDriver is closed.';

const describeExit = (info: ExitInfo) => (info.signal ? `signal ${info.signal}` : `code ${String(info.code)}`);

/**
 * The processes of this driver's revision runtimes: spawning, observing, stopping, and
 * restarting the active revision with backoff when it exits or its startup fails. Every
 * transition of a handle's state happens here (see runtime-handle.ts).
 */
export class RuntimeSupervisor {
  private readonly handles = new Map<string, RuntimeHandle>();
  private readonly mutex = new KeyedMutex();
  private gate: Promise<unknown> = Promise.resolve();
  private closing = false;
  /** Starts waiting for the control plane: close() waits for them, so none outlives it. */
  private readonly starts = new Set<Promise<unknown>>();

  /** The status versions read, for the worker's wait on the next one (ComputeDriver.awaitStatusChange). */
  readonly statusChanges: StatusChanges;

  constructor(private readonly options: SupervisorOptions) {
    this.statusChanges = new StatusChanges(options.probeTimeoutMs);
  }

  get closed(): boolean {
    return this.closing;
  }

  /** Locked operations wait for this first (recovery after a restart). */
  holdUntil(ready: Promise<unknown>): void {
    this.gate = ready;
  }

  /** One operation per Agent at a time (worker calls and supervised restarts), after recovery. */
  locked<T>(agentId: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(agentId, async () => {
      await this.gate;
      signal.throwIfAborted();
      return fn();
    });
  }

  // ---- the handles ---------------------------------------------------------------------------

  get(agentId: string, revisionId: string): RuntimeHandle | undefined {
    return this.handles.get(keyOf(agentId, revisionId));
  }

  track(handle: RuntimeHandle): void {
    this.handles.set(handle.key, handle);
  }

  private isTracked(handle: RuntimeHandle): boolean {
    return this.handles.get(handle.key) === handle;
  }

  forget(handle: RuntimeHandle): void {
    this.statusChanges.forget(handle.key);
    if (this.isTracked(handle)) this.handles.delete(handle.key);
  }

  forAgent(agentId: string): RuntimeHandle[] {
    return [...this.handles.values()].filter((h) => h.agent.agentId === agentId);
  }

  all(): RuntimeHandle[] {
    return [...this.handles.values()];
  }

  // ---- transitions -----------------------------------------------------------------------------

  /**
   * staged | stopped | crashed | restarting → starting. Every start asks the control plane
   * again and the process starts inside that answer, so Secret values exist only in its
   * environment. Throws when the start is refused or cannot be authorized (nothing started).
   */
  async spawn(handle: RuntimeHandle): Promise<void> {
    if (this.closing) throw new Error(CLOSED);
    const started = this.options.withStartEnvironment(handle, async (environment, delivered) => {
      // A close while the control plane answered wins: nothing starts after it.
      if (this.closing) throw new Error(CLOSED);
      rmSync(handle.paths.endpoint, { force: true });
      const prepared = await this.options.launch(handle);
      if (this.closing) {
        await prepared.close();
        throw new Error(CLOSED);
      }
      const proc = spawnRuntime(prepared.launch, { ...environment, ...prepared.env }, handle.paths, prepared.sandboxed);
      void proc.exited.then(() => prepared.close());
      handle.state = { kind: 'starting', proc, endpoint: null };
      handle.deliveredSecrets = delivered;
      logLine(handle.paths, `runtime started (pid ${proc.pid})`);
      if (delivered.length > 0) {
        // The runtime log is readable with Agent read; the names are Configuration content, so
        // they go to the live view (behind configuration:read) and OCC's own log, not here.
        logLine(handle.paths, `delivered ${delivered.length} Secret variable${delivered.length === 1 ? '' : 's'}`);
        this.options.log?.('compute.local.secrets_delivered', { agentId: handle.agent.agentId, revisionId: handle.revisionId, names: delivered });
      }
      void proc.exited.then((info) => this.exited(handle, proc, info));
      return proc;
    });
    this.starts.add(started);
    try {
      const proc = await started;
      if (handle.role === 'active') void this.watchActiveStartup(handle, proc);
    } finally {
      this.starts.delete(started);
    }
  }

  /** The revision becomes the Agent's supervised one; a runtime not running (or crashed) starts, or is retried. */
  async activate(handle: RuntimeHandle): Promise<void> {
    const wasActive = handle.role === 'active';
    handle.role = 'active';
    const state = handle.state;
    if (state.kind === 'staged' || state.kind === 'stopped' || state.kind === 'crashed') await this.spawn(handle).catch((error: unknown) => this.startRefused(handle, error));
    else if (state.kind === 'starting' && !wasActive) void this.watchActiveStartup(handle, state.proc);
  }

  /** starting → running, once status and gateway agreed. */
  markRunning(handle: RuntimeHandle, proc: RunningProcess): void {
    const state = handle.state;
    if (state.kind === 'starting' && state.proc === proc && state.endpoint) {
      handle.state = { kind: 'running', proc, endpoint: state.endpoint };
      handle.lastFailureCode = null;
    }
  }

  /** crashed → stopped, once a prepare has reported the crash: the next prepare starts afresh. */
  settleCrash(handle: RuntimeHandle): void {
    if (handle.state.kind === 'crashed') handle.state = { kind: 'stopped' };
  }

  /** Records why a start did not happen: the code in the handle and the revision's log, the variable's name in OCC's own log only. */
  recordStartFailure(handle: RuntimeHandle, error: unknown): StartFailure {
    const failure = startFailureOf(error);
    handle.lastFailureCode = failure.code;
    logLine(handle.paths, describeStartFailure(failure));
    this.options.log?.('compute.local.start_refused', {
      agentId: handle.agent.agentId,
      revisionId: handle.revisionId,
      code: failure.code,
      ...(failure.variable ? { variable: failure.variable } : {}),
    });
    return failure;
  }

  /**
   * The runtime reported a failed startup. A candidate is stopped (the next prepare starts it
   * afresh; a stop under way finishes even if `signal` aborts); the active revision is stopped and
   * restarted with backoff. Runs under the lock.
   */
  async startupFailed(handle: RuntimeHandle, proc: RunningProcess, code: string, signal: AbortSignal): Promise<void> {
    const state = handle.state;
    if (!isLive(state) || state.proc !== proc) return;
    logLine(handle.paths, `runtime startup failed (${code})`);
    handle.lastFailureCode = code;
    handle.state = { kind: 'stopped' };
    const stopping = this.terminateLogged(handle, proc);
    if (handle.role === 'candidate') return untilAborted(stopping, signal);
    await stopping;
    // A failed startup never counts as time up: the series keeps growing until a start succeeds.
    if (!this.closing && this.isTracked(handle) && handle.state.kind === 'stopped') this.scheduleRestart(handle, 0);
  }

  /** any → stopped; a stop already under way finishes even if `signal` aborts. The handles are forgotten. */
  async stopAll(handles: RuntimeHandle[], signal: AbortSignal): Promise<void> {
    for (const h of handles) this.forget(h);
    const stopping = Promise.all(handles.map((h) => this.stop(h)));
    if (handles.length === 0) return;
    await untilAborted(stopping, signal);
  }

  /** Stops every runtime this process supervises (waiting for recovery first). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.gate;
    const all = this.all();
    this.handles.clear();
    await Promise.all(all.map((h) => this.stop(h)));
    await Promise.allSettled([...this.starts]);
  }

  // ---- observing -------------------------------------------------------------------------------

  /** Reads the status of the process this driver started, and judges it. */
  async observe(handle: RuntimeHandle, signal: AbortSignal): Promise<Observation> {
    const state = handle.state;
    if (!isLive(state)) return { kind: 'starting' };
    if (state.kind === 'starting') state.endpoint ??= readEndpoint(handle.paths.endpoint, state.proc.runtimePid);
    const endpoint = state.endpoint;
    if (!endpoint) return { kind: 'starting' };
    const token = this.options.token('startup-status', handle.revisionId);
    const read = await fetchStartupStatus(endpoint.statusPort, token, signal, this.options.probeTimeoutMs);
    const now = handle.state;
    if (!isLive(now) || now.proc !== state.proc) return { kind: 'starting' };
    this.statusChanges.record(handle.key, endpoint.statusPort, token, read);
    return observeStatus(read, { revisionId: handle.revisionId, startupId: endpoint.startupId, selections: handle.selections, enabled: handle.enabled });
  }

  /** The go to a candidate holding in `prepared` (its status server's `POST /proceed`); false when it was not taken. */
  async proceed(handle: RuntimeHandle, signal: AbortSignal): Promise<boolean> {
    const state = handle.state;
    if (!isLive(state) || !state.endpoint) return false;
    return requestProceed(state.endpoint.statusPort, this.options.token('startup-status', handle.revisionId), signal, this.options.probeTimeoutMs);
  }

  gatewayServes(handle: RuntimeHandle, port: number, signal: AbortSignal): Promise<boolean> {
    return gatewayServes(this.options.probeGateway, port, this.options.token('gateway', handle.revisionId), signal, this.options.probeTimeoutMs);
  }

  // ---- internals -------------------------------------------------------------------------------

  /** An exit this driver did not ask for: restart the active revision with backoff; mark a candidate crashed. */
  private exited(handle: RuntimeHandle, proc: RunningProcess, info: ExitInfo): void {
    const state = handle.state;
    if (!isLive(state) || state.proc !== proc) return;
    signalProcessGroup(proc.pid, 'SIGKILL');
    logLine(handle.paths, `runtime exited unexpectedly (${describeExit(info)})`);
    if (this.closing || !this.isTracked(handle)) {
      handle.state = { kind: 'stopped' };
      return;
    }
    handle.lastFailureCode = 'RUNTIME_EXITED';
    if (handle.role === 'candidate') {
      // Reported by the next prepare, which its ended status wait brings at once; the worker then brings the active revision back.
      handle.state = { kind: 'crashed', exit: info };
      return;
    }
    this.scheduleRestart(handle, Date.now() - proc.startedAt);
  }

  /** → restarting: counts the restart and arms its timer. */
  private scheduleRestart(handle: RuntimeHandle, upForMs: number): void {
    const plan = nextRestart(this.options.backoff, handle.consecutiveFailures, upForMs);
    handle.consecutiveFailures = plan.consecutiveFailures;
    handle.restarts += 1;
    logLine(handle.paths, `restarting in ${plan.delayMs} ms (restart ${handle.restarts})`);
    this.options.log?.('compute.local.restart_scheduled', { agentId: handle.agent.agentId, revisionId: handle.revisionId, delayMs: plan.delayMs });
    this.armRestart(handle, plan.delayMs);
  }

  /** Respawns after `delay` under the Agent's lock; if the lock stays busy, tries again later. */
  private armRestart(handle: RuntimeHandle, delay: number): void {
    const timer: NodeJS.Timeout = setTimeout(() => {
      this.locked(handle.agent.agentId, AbortSignal.timeout(RESTART_LOCK_WAIT_MS), async () => {
        if (this.restartDue(handle, timer)) await this.spawn(handle).catch((error: unknown) => this.startRefused(handle, error));
      }).catch((error) => {
        this.options.log?.('compute.local.restart_failed', { error: String(error) });
        // Never give up on the active runtime: the lock may be held by a long stop.
        if (this.restartDue(handle, timer)) this.armRestart(handle, this.options.backoff.capMs);
      });
    }, delay);
    timer.unref();
    handle.state = { kind: 'restarting', timer };
  }

  /**
   * A start of the active revision did not happen (refused, or the control plane did not answer):
   * it never runs without its Secrets; it is retried with backoff, since a grant may be restored.
   */
  private startRefused(handle: RuntimeHandle, error: unknown): void {
    if (this.closing || !this.isTracked(handle) || handle.role !== 'active') return;
    this.recordStartFailure(handle, error);
    handle.state = { kind: 'stopped' };
    this.scheduleRestart(handle, 0);
  }

  private restartDue(handle: RuntimeHandle, timer: NodeJS.Timeout): boolean {
    const state = handle.state;
    return !this.closing && handle.role === 'active' && this.isTracked(handle) && state.kind === 'restarting' && state.timer === timer;
  }

  /**
   * Nobody prepares the active revision after a supervised (re)start: this watch notices a failed
   * startup (so it is retried with backoff, not left unready) and a successful one.
   */
  private async watchActiveStartup(handle: RuntimeHandle, proc: RunningProcess): Promise<void> {
    const watching = () => {
      const state = handle.state;
      return !this.closing && handle.role === 'active' && this.isTracked(handle) && state.kind === 'starting' && state.proc === proc;
    };
    while (watching()) {
      await sleep(STARTUP_POLL_MS, undefined, { ref: false });
      if (!watching()) return;
      const probe = AbortSignal.timeout(this.options.probeTimeoutMs * 2);
      const seen = await this.observe(handle, probe).catch(() => null);
      if (seen?.kind === 'failed') {
        await this.locked(handle.agent.agentId, AbortSignal.timeout(RESTART_LOCK_WAIT_MS), async () => {
          if (watching()) await this.startupFailed(handle, proc, seen.code, AbortSignal.timeout(RESTART_LOCK_WAIT_MS));
        }).catch((error) => this.options.log?.('compute.local.restart_failed', { error: String(error) }));
      } else if (seen?.kind === 'ready' && (await this.gatewayServes(handle, seen.gatewayPort, probe).catch(() => false))) {
        this.markRunning(handle, proc);
      }
    }
  }

  /** any → stopped. */
  private async stop(handle: RuntimeHandle): Promise<void> {
    const state = handle.state;
    handle.state = { kind: 'stopped' };
    if (state.kind === 'restarting') clearTimeout(state.timer);
    if (isLive(state)) await this.terminateLogged(handle, state.proc);
  }

  private async terminateLogged(handle: RuntimeHandle, proc: RunningProcess): Promise<void> {
    logLine(handle.paths, `stopping runtime (pid ${proc.pid})`);
    const info = await terminate(proc, this.options.graceMs);
    logLine(handle.paths, `runtime stopped (${describeExit(info)})`);
  }
}

/** Waits for `work` unless `signal` aborts first (the work itself carries on). */
async function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
