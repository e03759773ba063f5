import { mkdirSync } from 'node:fs';
import { hostLaunchCommand, type HostLaunchCommand } from '@occ/runtime/launch';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import {
  ComputeValidationError,
  type AgentRef,
  type ComputeContext,
  type ComputeDriver,
  type GatewayMessage,
  type GatewayReply,
  type PrepareResult,
  type RemovedResource,
  type RestoreCause,
  type RuntimeDescription,
  type RuntimeLogs,
} from '../../../core/ports/compute-driver.ts';
import type { ComputeHostDirectory, NamespaceSshHost } from '../../../core/ports/compute-hosts.ts';
import type { RevisionRef, RuntimeStartAuthority } from '../../../core/ports/runtime-start.ts';
import { deriveToken, loadDriverKey } from '../runtime-contract/driver-key.ts';
import { relayToGateway } from '../runtime-contract/gateway-chat.ts';
import { DeliveredValues } from '../runtime-contract/delivered-values.ts';
import { KeyedMutex } from '../runtime-contract/keyed-mutex.ts';
import { lastLines, tailLength } from '../runtime-contract/log-lines.ts';
import { failedPrepare, prepareResultOf, type FailedPrepare } from '../runtime-contract/prepare-result.ts';
import { lineRedactor } from '../runtime-contract/redaction.ts';
import { DEFAULT_BACKOFF, RestartSeries, type BackoffPolicy } from '../runtime-contract/restart-backoff.ts';
import { restoreEvent } from '../runtime-contract/restore-event.ts';
import { checkManifestDescribes, isRevisionId, validateRunnableRevision } from '../runtime-contract/runnable-revision.ts';
import { describeObserved, noRuntime, notServingYet } from '../runtime-contract/runtime-description.ts';
import { runtimeEnvironment } from '../runtime-contract/runtime-env.ts';
import { isRefusal, startAuthority, startFailureOf } from '../runtime-contract/start-refusal.ts';
import { fetchStartupStatus, observeStatus, type Observation } from '../runtime-contract/startup-status.ts';
import { StatusChanges } from '../runtime-contract/status-changes.ts';
import { agentDirOf, hostRevisionPaths, listScript, logScript, quote, stageScript, stopScript, TOOLCHAIN_MISSING_EXIT, type HostRevisionPaths } from './host-files.ts';
import { observeScript, parseObserved, type HostRuntime } from './observe.ts';
import { HostPool, type Placement } from './host-pool.ts';
import { namespaceHostSettings, type SshComputeSettings } from './settings.ts';
import { SshFailure, SSH_FAILURES, type SshHost } from './ssh-host.ts';
import { DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_READY_WAIT_MS, gatewayServes, watchPrepare, type GatewayProbe } from '../runtime-contract/prepare-watch.ts';

export interface SshComputeOptions {
  settings: SshComputeSettings;
  /** What OCC keeps for this driver (composition: `<dataDir>/compute/ssh`): the key the runtimes' tokens derive from. */
  rootDir: string;
  /** Whether a gateway serves (`probeGatewayReady`), asked on OCC's end of the forwarded port. */
  probeGateway: GatewayProbe;
  /** The runtimes' network variables (`runtimeNetworkSettings`); a file they name must exist at the same path on the host. */
  network?: Readonly<Record<string, string>>;
  /** One status or gateway read (default 2 s). */
  probeTimeoutMs?: number;
  /** How long one prepare call watches a starting runtime before answering "not ready yet" (default 2 s). */
  readyWaitMs?: number;
  /** SIGTERM → SIGKILL of a runtime's process group on the host (default 25 s: the runtime gives its gateway 20 s). */
  stopGraceSeconds?: number;
  /** How often the active runtimes are checked, and a crashed one started again (default 10 s). */
  superviseEveryMs?: number;
  /** Restart delays of an active runtime that exited or whose startup failed (runtime-contract/restart-backoff.ts). */
  backoff?: BackoffPolicy;
  /** What starts a runtime on the host (default: the workspace's pinned runtime, `hostLaunchCommand`). */
  launch?: HostLaunchCommand;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

const POLL_MS = 250;
/** At most this much of a runtime log crosses the connection per read. */
const MAX_LOG_BYTES = 1024 * 1024;
/** The host's own PATH for the runtime: its toolchain is the pinned one at OCC_SSH_WORKSPACE, whatever else the host has. */
const HOST_PATH = '/usr/local/bin:/usr/bin:/bin';
/** [P-3]: no plugin selections on this target, so the status of a runtime here accounts for none. */
const NO_SELECTIONS: ReadonlySet<string> = new Set();

/** What this process delivered to a runtime it started: names for the live view, values to redact. */
interface StartRecord {
  delivered: string[];
}

export function createSshComputeDriver(options: SshComputeOptions): ComputeDriver {
  return new SshCompute(options);
}

/**
 * The ComputeDriver port on one SSH host (docs/compute-ssh.md): each revision's runtime is a
 * process of the host's user, started detached by a launcher that takes its environment on stdin;
 * its status and gateway listen on the host's loopback and are read through the connection.
 * Recreate per Agent: the Agent's other runtimes stop before a candidate starts [P-6]. What runs is
 * read from the host at every call (its pid files, checked against the process's working
 * directory), so an OCC restart loses nothing but the Secrets it delivered, which a restore
 * delivers again under a fresh authorization.
 */
class SshCompute implements ComputeDriver {
  readonly id = 'ssh';
  /** A second process would restart every runtime this one started (it cannot know their Secrets) and supervise them twice. */
  readonly singleProcess = true;
  /** [P-3]: the runtime runs as one host user with nothing to confine a plugin. */
  readonly pluginLimits = { plugins: false, agentApprovers: false };
  private readonly hosts: HostPool;
  private readonly launch: HostLaunchCommand;
  private readonly locks = new KeyedMutex();
  private readonly statusChanges: StatusChanges;
  /** What this process's last start of each revision delivered (names for the live view). */
  private readonly starts = new Map<string, StartRecord>();
  /** Every value delivered to a revision's starts since this process began (rotations too), redacted from its logs and replies until it is retired. */
  private readonly delivered = new DeliveredValues();
  /** The local forwards each revision's runtime is read through (status, gateway): released when it stops or its port changes. */
  private readonly forwards = new Map<string, { host: SshHost; status?: number; gateway?: number }>();
  /** Candidates this process started for a prepare, not yet activated: one found not running has exited, and that prepare failed. */
  private readonly candidates = new Set<string>();
  private supervising = false;
  private readonly failures = new Map<string, string>();
  /** Each Agent's active revision as this process last activated or restored it: what supervision keeps running. */
  private readonly active = new Map<string, RevisionRef>();
  private readonly restarts = new Map<string, number>();
  private readonly restartSeries: RestartSeries;
  /** A check sooner than the next tick, for a restart whose backoff ends before it. */
  private wake: { at: number; timer: NodeJS.Timeout } | null = null;
  /** Candidates whose last prepare failed: one still running on the host is stopped by supervision before the active one starts again. */
  private readonly abandoned = new Map<string, RevisionRef>();
  private supervision: NodeJS.Timeout | null = null;
  private authority: RuntimeStartAuthority | null = null;
  private key: Buffer | null = null;

  constructor(private readonly options: SshComputeOptions) {
    this.hosts = new HostPool(options.settings);
    this.launch = options.launch ?? hostLaunchCommand(options.settings.workspace);
    this.statusChanges = new StatusChanges(options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    this.restartSeries = new RestartSeries(options.backoff ?? DEFAULT_BACKOFF);
  }

  /**
   * The rules every driver of OCC's runtime shares, then this target's own [P-3]: no plugin
   * selections and no Agent-wide default approvers (the host runs the runtime as one user, with
   * nothing to confine a plugin), and the OpenClaw harness only. Before any host effect.
   */
  validateRevision(revision: AgentRevision): void {
    validateRunnableRevision(revision, this.id);
    if (revision.harness !== 'openclaw') throw new ComputeValidationError('HARNESS_UNSUPPORTED', 'The ssh ComputeDriver runs the openclaw harness only.', '/harness');
    if (!this.pluginLimits.plugins && Object.keys(revision.plugins).length > 0) {
      throw new ComputeValidationError('SSH_PLUGINS_UNSUPPORTED', 'The ssh ComputeDriver runs Agents without plugins: the plugin map must be empty.', '/plugins');
    }
    if (!this.pluginLimits.agentApprovers && revision.pluginApprovers !== null) {
      throw new ComputeValidationError(
        'SSH_APPROVERS_UNSUPPORTED',
        'The ssh ComputeDriver takes no Agent default plugin approvers: pluginApprovers must be null.',
        '/pluginApprovers',
      );
    }
  }

  /** A Namespace's host before it is saved: each field that cannot be used is named (its pointer in the body). */
  validateSshHost(host: NamespaceSshHost): void {
    namespaceHostSettings(host);
  }

  start(authority: RuntimeStartAuthority, hosts?: ComputeHostDirectory): void {
    this.authority = authority;
    this.hosts.use(hosts);
    this.supervision ??= setInterval(() => void this.supervise(), this.options.superviseEveryMs ?? 10_000).unref();
  }

  /** Runtimes keep running on the host when OCC stops; only the connection ends. */
  async close(): Promise<void> {
    this.authority = null;
    if (this.supervision) clearInterval(this.supervision);
    this.supervision = null;
    if (this.wake) clearTimeout(this.wake.timer);
    this.wake = null;
    await this.hosts.close();
  }

  // ---- the port ----------------------------------------------------------------------------

  async prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, { signal }: ComputeContext): Promise<PrepareResult> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    const ref = refOf(revision);
    const key = keyOf(ref);
    return this.locks.run(ref.agentId, async () => {
      this.abandoned.delete(key);
      const result = await this.onHost(async () => {
        const at = await this.hosts.of(ref.namespaceId);
        const paths = await this.paths(at, ref);
        const runtimes = await this.list(at, ref.agentId);
        if (!runtimes.some((r) => r.revisionId === ref.revisionId && r.running)) {
          // Started by an earlier call of this prepare and gone since: it exited before it was ready.
          if (this.candidates.delete(key)) return failedPrepare('RUNTIME_EXITED');
          // Recreate [P-6]: the Agent's other runtimes (its old gateway) stop before this one installs.
          await this.stopRuntimes(
            at,
            ref,
            runtimes.filter((r) => r.revisionId !== ref.revisionId && r.running),
          );
          const failed = await this.stageAndStart(at, ref, manifest, paths);
          if (failed) return failed;
          this.candidates.add(key);
        }
        const watched = await this.watch(at, ref, paths, signal);
        // A failed start stops for good; the next prepare starts it afresh and the worker brings the active one back.
        if (watched.state === 'failed') await this.stopRuntimes(at, ref, [{ revisionId: ref.revisionId, pid: 0, running: true }]);
        return watched;
      });
      if (result.state === 'failed') {
        this.candidates.delete(key);
        this.failures.set(key, result.failure.code);
        // Its stop may not have reached the host (it did not answer): supervision stops it once it does.
        this.abandoned.set(key, ref);
      }
      return result;
    });
  }

  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    const ref = refOf(revision);
    await this.locks.run(ref.agentId, async () => {
      const at = await this.hosts.of(ref.namespaceId);
      const runtimes = await this.list(at, ref.agentId);
      await this.stopRuntimes(
        at,
        ref,
        runtimes.filter((r) => r.revisionId !== ref.revisionId && r.running),
      );
      if (!runtimes.some((r) => r.revisionId === ref.revisionId && r.running)) throw new Error('The revision does not run on the SSH host.');
      this.candidates.delete(keyOf(ref));
      this.active.set(ref.agentId, ref);
    });
  }

  /**
   * Starts the pointer's revision again when nothing of the Agent runs. One that runs but was not
   * started by this process (it outlived an OCC restart) starts again too: its Secrets are then
   * re-authorized, and known to redact its logs and replies (the port allows it: docs/compute-ssh.md).
   * At recovery, a candidate left running by the process before is stopped first: nothing in this
   * process would ever activate it.
   */
  async restoreRevision(revision: AgentRevision, manifest: RuntimeManifest, cause: RestoreCause, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    const ref = refOf(revision);
    await this.locks.run(ref.agentId, async () => {
      // This process supervises it already (restarts with back-off, every 10 s): the periodic check adds nothing.
      const supervised = this.active.get(ref.agentId);
      if (cause.kind === 'check' && supervised?.revisionId === ref.revisionId && supervised.namespaceId === ref.namespaceId) return;
      this.active.set(ref.agentId, ref);
      const at = await this.hosts.of(ref.namespaceId);
      let runtimes = await this.list(at, ref.agentId);
      if (cause.kind !== 'candidate-failed') {
        const leftovers = runtimes.filter((r) => r.revisionId !== ref.revisionId && r.running && !this.candidates.has(keyOf({ agentId: ref.agentId, revisionId: r.revisionId })));
        await this.stopRuntimes(at, ref, leftovers);
        runtimes = runtimes.filter((r) => !leftovers.includes(r));
      }
      if (runtimes.some((r) => r.revisionId !== ref.revisionId && r.running)) return;
      const own = runtimes.find((r) => r.revisionId === ref.revisionId);
      if (own?.running && this.starts.has(keyOf(ref))) return;
      if (own?.running) await this.stopRuntimes(at, ref, [own]);
      const failed = await this.stageAndStart(at, ref, manifest, await this.paths(at, ref));
      if (failed) {
        this.options.log?.('compute.ssh.recovery_skipped', { agentId: ref.agentId, revisionId: ref.revisionId, reason: failed.failure.code });
        return;
      }
      this.options.log?.(...restoreEvent('ssh', revision, cause));
    });
  }

  awaitStatusChange(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    return this.statusChanges.awaitChange(keyOf({ ...agent, revisionId }), signal);
  }

  /** The Agent runs one runtime at a time: whatever of it runs stops with it. */
  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    await this.locks.run(agent.agentId, async () => {
      // Stopped on purpose: supervision no longer keeps it running.
      this.active.delete(agent.agentId);
      const at = await this.hosts.of(agent.namespaceId);
      const runtimes = await this.list(at, agent.agentId);
      await this.stopRuntimes(
        at,
        agent,
        runtimes.filter((r) => r.running || r.revisionId === revisionId),
      );
    });
  }

  async retireRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    await this.locks.run(agent.agentId, async () => {
      const at = await this.hosts.of(agent.namespaceId);
      const paths = await this.paths(at, { ...agent, revisionId });
      await at.host.run(stopScript(paths, this.grace(), true), { timeoutMs: this.stopTimeoutMs() });
      await this.forget({ ...agent, revisionId });
      this.dropRevision(keyOf({ ...agent, revisionId }));
    });
  }

  /** Every runtime of the deleted Agent stops, and its private directory (state, revisions, logs) goes. */
  async removeAgent(agent: AgentRef, { signal }: ComputeContext): Promise<RemovedResource[]> {
    signal.throwIfAborted();
    return this.locks.run(agent.agentId, async () => {
      this.active.delete(agent.agentId);
      const at = await this.hosts.of(agent.namespaceId);
      const runtimes = await this.list(at, agent.agentId);
      await this.stopRuntimes(at, agent, runtimes);
      const dir = agentDirOf(await at.agentsDirectory(), agent.agentId);
      const removed = await at.host.run(`[ -d ${quote(dir)} ] || exit 3\nrm -rf ${quote(dir)}`);
      if (removed.code !== 0 && removed.code !== 3) throw new Error("The Agent's directory could not be removed on the SSH host.");
      for (const runtime of runtimes) this.dropRevision(keyOf({ agentId: agent.agentId, revisionId: runtime.revisionId }));
      return [...runtimes.filter((r) => r.running).map((r) => ({ kind: 'process', name: r.revisionId })), ...(removed.code === 0 ? [{ kind: 'directory', name: dir }] : [])];
    });
  }

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    const ref = { ...agent, revisionId };
    const key = keyOf(ref);
    const probe = () => AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    const at = await this.hosts.of(agent.namespaceId).catch(() => null);
    const seen = at && (await this.observe(at, ref, probe()).catch(() => null));
    if (!at || !seen) return { ...noRuntime(), lastFailureCode: this.failures.get(key) ?? null };
    const serving = seen.observation?.kind === 'ready' && (await this.gatewayServes(at, ref, seen.observation.gatewayPort, probe()).catch(() => false));
    return describeObserved(seen.running, seen.observation, serving, {
      startupId: seen.startupId,
      restarts: this.restarts.get(key) ?? 0,
      deliveredSecrets: seen.running ? (this.starts.get(key)?.delivered ?? []) : [],
      lastFailureCode: this.failures.get(key) ?? null,
    });
  }

  async sendMessage(agent: AgentRef, revisionId: string, message: GatewayMessage, signal: AbortSignal): Promise<GatewayReply> {
    const ref = { ...agent, revisionId };
    const at = await this.hosts.of(agent.namespaceId).catch(() => null);
    const seen = at && (await this.observe(at, ref, AbortSignal.any([signal, AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)])).catch(() => null));
    if (!at || !seen) return { kind: 'unavailable', reason: 'The SSH host did not answer.' };
    if (!seen.running) return { kind: 'not-serving', state: 'it is stopped' };
    if (seen.observation?.kind !== 'ready') return notServingYet(seen.observation);
    const port = await this.forwardFor(at, ref, 'gateway', seen.observation.gatewayPort);
    return relayToGateway({ port, token: this.token('gateway', revisionId) }, message, { redact: this.redacted(ref), signal });
  }

  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const ref = { ...agent, revisionId };
    const lines = tailLength(tail);
    const at = await this.hosts.of(agent.namespaceId);
    const read = await at.host.run(logScript(await this.paths(at, ref), lines + 1, MAX_LOG_BYTES));
    // Cut at MAX_LOG_BYTES, the first line is a fragment (part of a value whole-value redaction would miss): it is dropped.
    const cut = Buffer.byteLength(read.stdout) >= MAX_LOG_BYTES;
    const text = cut ? read.stdout.slice(read.stdout.indexOf('\n') + 1) : read.stdout;
    // OpenClaw and the runtime print to the same log: a reader with Agent read never sees a token or a delivered value.
    const last = lastLines(text, lines, lineRedactor(this.redacted(ref)));
    return { lines: last.lines, truncated: last.truncated || cut };
  }

  // ---- runtimes on the host -------------------------------------------------------------------

  /**
   * Keeps each Agent's active runtime running, as a process supervisor would: a candidate whose
   * last prepare failed but still runs (its stop did not reach a host that stopped answering) is
   * stopped, and an active runtime that exited while nothing else of the Agent runs (a candidate
   * being prepared stops it on purpose) is started again, re-authorized like every start. A host
   * that does not answer is tried at the next tick.
   */
  private async supervise(): Promise<void> {
    if (this.supervising) return;
    this.supervising = true;
    try {
      const agents = new Map<string, AgentRef>([...this.abandoned.values(), ...this.active.values()].map((ref) => [ref.agentId, ref]));
      for (const agent of agents.values()) await this.locks.run(agent.agentId, () => this.superviseAgent(agent)).catch(() => {});
    } finally {
      this.supervising = false;
    }
  }

  private async superviseAgent(agent: AgentRef): Promise<void> {
    const { agentId } = agent;
    const at = await this.hosts.of(agent.namespaceId);
    const runtimes = await this.list(at, agentId);
    const abandoned = runtimes.filter((r) => r.running && this.abandoned.has(keyOf({ agentId, revisionId: r.revisionId })));
    if (abandoned.length > 0) {
      await this.stopRuntimes(at, agent, abandoned);
      this.options.log?.('compute.ssh.abandoned_stopped', { agentId, revisionIds: abandoned.map((r) => r.revisionId) });
    }
    for (const r of runtimes) if (!r.running) this.abandoned.delete(keyOf({ agentId, revisionId: r.revisionId }));
    for (const r of abandoned) this.abandoned.delete(keyOf({ agentId, revisionId: r.revisionId }));
    const ref = this.active.get(agentId);
    const running = runtimes.filter((r) => r.running && !abandoned.includes(r));
    if (!ref || running.some((r) => r.revisionId !== ref.revisionId)) return;
    const key = keyOf(ref);
    const own = running.find((r) => r.revisionId === ref.revisionId);
    if (own) {
      // Running is not serving: a start that failed (its gateway never came up) is stopped and retried like a crash.
      const failure = await this.failedStartup(at, ref);
      if (!failure) return;
      this.failures.set(key, failure);
      this.options.log?.('compute.ssh.startup_failed', { agentId, revisionId: ref.revisionId, code: failure });
      await this.stopRuntimes(at, ref, [own]);
    }
    // Backoff as on `local`: a runtime that keeps failing is not started again at every check.
    const waitMs = this.restartSeries.waitMs(key);
    if (waitMs > 0) return this.superviseAgain(waitMs);
    const failed = await this.startRuntime(at, ref, await this.paths(at, ref));
    if (failed) this.restartSeries.started(key);
    else this.restarts.set(key, (this.restarts.get(key) ?? 0) + 1);
    this.options.log?.('compute.ssh.restarted', { agentId, revisionId: ref.revisionId, ...(failed ? { failure: failed.failure.code } : {}) });
  }

  /** One check `ms` from now (the earliest asked for wins); ticks go on as before. */
  private superviseAgain(ms: number): void {
    const at = Date.now() + ms;
    if (!this.supervision || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(() => {
      this.wake = null;
      void this.supervise();
    }, ms).unref();
    this.wake = { at, timer };
  }

  /** The failure code a running runtime reports for its startup; null while it starts or serves, or when it cannot be read. */
  private async failedStartup(at: Placement, ref: RevisionRef): Promise<string | null> {
    const seen = await this.observe(at, ref, AbortSignal.timeout((this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS) * 2)).catch(() => null);
    return seen?.observation?.kind === 'failed' ? seen.observation.code : null;
  }

  /** Host failures become this prepare's failure, with their closed code and what to do. */
  private async onHost(step: () => Promise<PrepareResult>): Promise<PrepareResult> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof SshFailure) return failedPrepare(error.code, error.message);
      throw error;
    }
  }

  /** Stages the revision (toolchain checked, directories, manifest), then starts its runtime; a failure when either did not happen. */
  private async stageAndStart(at: Placement, ref: RevisionRef, manifest: RuntimeManifest, paths: HostRevisionPaths): Promise<FailedPrepare | null> {
    const toolchain = [this.launch.node, this.launch.launcher, ...this.launch.runtimeArgs.filter((a) => a.startsWith('/'))];
    const staged = await at.host.run(stageScript(paths, toolchain), { stdin: `${JSON.stringify(manifest, null, 2)}\n` });
    if (staged.code === TOOLCHAIN_MISSING_EXIT) return failedPrepare('RUNTIME_TOOLCHAIN_MISSING', SSH_FAILURES.RUNTIME_TOOLCHAIN_MISSING);
    if (staged.code !== 0) {
      if (/No space left on device/i.test(staged.stderr)) return failedPrepare('SSH_HOST_DISK_FULL', SSH_FAILURES.SSH_HOST_DISK_FULL);
      return failedPrepare('SSH_STAGING_FAILED', "The revision's files could not be written on the SSH host.");
    }
    this.failures.delete(keyOf(ref));
    return this.startRuntime(at, ref, paths);
  }

  /**
   * One start, re-authorized: the Secrets the control plane delivers now go, with the runtime's
   * whole environment, over the connection's stdin to the launcher (src/host-launch.mjs) — never
   * in a command line, never in a file on the host.
   */
  private async startRuntime(at: Placement, ref: RevisionRef, paths: HostRevisionPaths): Promise<FailedPrepare | null> {
    const authority = startAuthority(this.authority, this.id);
    try {
      return await authority.withStartEnvironment(ref, async ({ variables, harnessAuth }) => {
        const tokens = {
          status: this.token('startup-status', ref.revisionId),
          gateway: this.token('gateway', ref.revisionId),
          transport: this.token('app-server-transport', ref.revisionId),
        };
        const env = runtimeEnvironment({
          base: { PATH: HOST_PATH, LANG: 'C.UTF-8' },
          agent: paths,
          revision: paths,
          statusToken: tokens.status,
          gatewayToken: tokens.gateway,
          transportSecret: tokens.transport,
          network: this.options.network ?? {},
          secrets: variables,
          codexPat: harnessAuth?.value,
        });
        // Known before the launch: a start whose answer is lost (the connection dropped) still has its values redacted.
        this.delivered.remember(keyOf(ref), [...Object.values(variables), ...(harnessAuth ? [harnessAuth.value] : [])]);
        const request = { command: this.launch.node, args: this.launch.runtimeArgs, env, cwd: paths.dir, log: paths.log, pidFile: paths.pidFile };
        const launched = await at.host.run(`${quote(this.launch.node)} ${quote(this.launch.launcher)}`, { stdin: JSON.stringify(request) });
        if (launched.code !== 0) return failedPrepare('RUNTIME_START_FAILED', 'The runtime could not be started on the SSH host.');
        this.starts.set(keyOf(ref), { delivered: Object.keys(variables) });
        this.restartSeries.started(keyOf(ref));
        this.options.log?.('compute.ssh.started', { agentId: ref.agentId, revisionId: ref.revisionId });
        return null;
      });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      const failure = startFailureOf(error);
      return failedPrepare(failure.code, failure.message);
    }
  }

  /** One prepare's watch of the starting runtime on its host (runtime-contract/prepare-watch.ts). */
  private watch(at: Placement, ref: RevisionRef, paths: HostRevisionPaths, signal: AbortSignal): Promise<PrepareResult> {
    return watchPrepare(
      async () => {
        const seen = await this.observe(at, ref, signal, paths);
        if (!seen.running) return failedPrepare('RUNTIME_EXITED');
        const observation = seen.observation ?? { kind: 'starting' };
        const serving = observation.kind === 'ready' && (await this.gatewayServes(at, ref, observation.gatewayPort, signal));
        return prepareResultOf(observation, serving);
      },
      { waitMs: this.options.readyWaitMs ?? DEFAULT_READY_WAIT_MS, pollMs: POLL_MS, signal },
    );
  }

  /**
   * One look at a revision on the host: whether its process runs, and the status its runtime
   * serves, read through the connection with the revision's token and judged [S-2]. `observation`
   * is null while nothing was announced yet.
   */
  private async observe(
    at: Placement,
    ref: RevisionRef,
    signal: AbortSignal,
    paths?: HostRevisionPaths,
  ): Promise<{ running: boolean; observation: Observation | null; startupId: string | null }> {
    const look = parseObserved((await at.host.run(observeScript(paths ?? (await this.paths(at, ref))), { signal })).stdout);
    if (!look.running || !look.endpoint) return { running: look.running, observation: null, startupId: null };
    const port = await this.forwardFor(at, ref, 'status', look.endpoint.statusPort);
    const token = this.token('startup-status', ref.revisionId);
    const read = await fetchStartupStatus(port, token, signal, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    this.statusChanges.record(keyOf(ref), port, token, read);
    const expected = { revisionId: ref.revisionId, startupId: look.endpoint.startupId, selections: NO_SELECTIONS, enabled: NO_SELECTIONS };
    return { running: true, observation: observeStatus(read, expected), startupId: look.endpoint.startupId };
  }

  private async gatewayServes(at: Placement, ref: RevisionRef, gatewayPort: number, signal: AbortSignal): Promise<boolean> {
    const port = await this.forwardFor(at, ref, 'gateway', gatewayPort).catch(() => null);
    if (port === null) {
      // A forward that could not be made is a gateway not serving now; the caller's own abort still ends the prepare.
      signal.throwIfAborted();
      return false;
    }
    return gatewayServes(this.options.probeGateway, port, this.token('gateway', ref.revisionId), signal, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  }

  /** Every revision the host holds for the Agent, and whether its runtime runs. */
  private async list(at: Placement, agentId: string): Promise<HostRuntime[]> {
    const listed = await at.host.run(listScript(await at.agentsDirectory(), agentId));
    if (listed.code !== 0) throw new Error("The Agent's revisions on the SSH host could not be listed.");
    return listed.stdout
      .split('\n')
      .map((line) => /^(\S+) ([0-9]+) ([01])$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && isRevisionId(m[1]!))
      .map((m) => ({ revisionId: m[1]!, pid: Number(m[2]), running: m[3] === '1' }));
  }

  private async stopRuntimes(at: Placement, agent: AgentRef, runtimes: readonly HostRuntime[]): Promise<void> {
    for (const runtime of runtimes) {
      const ref = { namespaceId: agent.namespaceId, agentId: agent.agentId, revisionId: runtime.revisionId };
      await at.host.run(stopScript(await this.paths(at, ref), this.grace(), false), { timeoutMs: this.stopTimeoutMs() });
      await this.forget(ref);
    }
  }

  /** What this process remembered of a runtime that no longer runs (its delivered values stay until the revision is retired: its log still holds them). */
  private async forget(ref: RevisionRef): Promise<void> {
    const key = keyOf(ref);
    this.starts.delete(key);
    this.candidates.delete(key);
    this.statusChanges.forget(key);
    const forwards = this.forwards.get(key);
    this.forwards.delete(key);
    for (const port of [forwards?.status, forwards?.gateway]) if (port !== undefined) await forwards?.host.release(port);
  }

  /** Everything kept of a revision that is gone from the host. */
  private dropRevision(key: string): void {
    this.delivered.forget(key);
    this.failures.delete(key);
    this.restarts.delete(key);
    this.restartSeries.forget(key);
    this.abandoned.delete(key);
  }

  /**
   * The local port that reaches a runtime's `remotePort` on the host: at most one per role and
   * revision, so a runtime that announces ever new ports cannot make OCC open listeners without end.
   */
  private async forwardFor(at: Placement, ref: RevisionRef, role: 'status' | 'gateway', remotePort: number): Promise<number> {
    const key = keyOf(ref);
    const forwards = this.forwards.get(key) ?? { host: at.host };
    const previous = forwards[role];
    if (previous !== undefined && previous !== remotePort) await forwards.host.release(previous);
    this.forwards.set(key, { ...forwards, host: at.host, [role]: remotePort });
    return at.host.localPortFor(remotePort);
  }

  private async paths(at: Placement, ref: Pick<RevisionRef, 'agentId' | 'revisionId'>): Promise<HostRevisionPaths> {
    return hostRevisionPaths(await at.agentsDirectory(), ref.agentId, ref.revisionId);
  }

  private token(label: 'startup-status' | 'gateway' | 'app-server-transport', revisionId: string): string {
    if (!this.key) {
      mkdirSync(this.options.rootDir, { recursive: true, mode: 0o700 });
      this.key = loadDriverKey(this.options.rootDir);
    }
    return deriveToken(this.key, label, revisionId);
  }

  /** The revision's tokens and, when this process started it, the values its start delivered. */
  private redacted(ref: RevisionRef): string[] {
    const tokens = [this.token('startup-status', ref.revisionId), this.token('gateway', ref.revisionId), this.token('app-server-transport', ref.revisionId)];
    return [...tokens, ...this.delivered.of(keyOf(ref))];
  }

  private grace(): number {
    return this.options.stopGraceSeconds ?? 25;
  }

  private stopTimeoutMs(): number {
    return (this.grace() + 15) * 1000;
  }
}

const refOf = (revision: AgentRevision): RevisionRef => ({ namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id });
const keyOf = (ref: Pick<RevisionRef, 'agentId' | 'revisionId'>) => `${ref.agentId}/${ref.revisionId}`;
