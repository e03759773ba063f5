import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
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
import type { CodexRuntimeSettings } from '../runtime-contract/codex-settings.ts';
import { CONTAINER_PATHS } from '../runtime-contract/container-paths.ts';
import { KeyedMutex } from '../runtime-contract/keyed-mutex.ts';
import { relayToGateway } from '../runtime-contract/gateway-chat.ts';
import { lastLines, tailLength } from '../runtime-contract/log-lines.ts';
import { failedPrepare, prepareResultOf, RESTARTING, type FailedPrepare } from '../runtime-contract/prepare-result.ts';
import { lineRedactor } from '../runtime-contract/redaction.ts';
import { restoreEvent } from '../runtime-contract/restore-event.ts';
import { checkManifestDescribes, validateRunnableRevision } from '../runtime-contract/runnable-revision.ts';
import { describeObserved, noRuntime, notServingYet } from '../runtime-contract/runtime-description.ts';
import { isRefusal, startAuthority, startFailureOf } from '../runtime-contract/start-refusal.ts';
import { fetchStartupStatus, observeStatus, requestProceed, type Observation } from '../runtime-contract/startup-status.ts';
import { StatusChanges } from '../runtime-contract/status-changes.ts';
import { ensureAgentNetwork, removeAgentNetwork } from './agent-network.ts';
import { removeAgentFromEngine } from './remove-agent.ts';
import { announcedEndpoint, demuxLog, sinceOf } from './container-log.ts';
import {
  containerName,
  containerSpec,
  labelFilter,
  MAX_INLINE_MANIFEST_BYTES,
  networkName,
  RUNTIME_IMAGE_HOLDS_LABEL,
  type RevisionIdentity,
  type RuntimeTokens,
} from './container-spec.ts';
import { appServerContainerName } from './codex-app-server.ts';
import { containerState, revisionOf, type ContainerView } from './container-view.ts';
import { PROCEED_MARKER, ProceedMarkers } from './proceed-marker.ts';
import { hostPortFor, withGatewayRelay } from './runtime-ports.ts';
import type { DockerComputeSettings } from './settings.ts';
import { DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_READY_WAIT_MS, gatewayServes, watchPrepare, type GatewayProbe } from '../runtime-contract/prepare-watch.ts';

export interface DockerComputeOptions {
  settings: DockerComputeSettings;
  /** The Engine API client (default: DOCKER_HOST or the local socket). */
  docker?: Docker;
  /** Whether the gateway serves (`probeGatewayReady` from `@occ/runtime/gateway-probe`): asked on the port published on the host's 127.0.0.1. */
  probeGateway: GatewayProbe;
  network?: Readonly<Record<string, string>>;
  /** The operator's curated catalog file (OCC_OPENCLAW_CATALOG), mounted read-only into each container. */
  catalog?: string | undefined;
  npmRegistry?: string | undefined;
  unselectedPlugins?: string | undefined;
  codex?: CodexRuntimeSettings | undefined;
  /**
   * Where a candidate prepared beside the serving container finds its go (<dataDir>/compute/docker/proceed;
   * proceed-marker.ts). Absent: every redeploy is `recreate`, whatever the setting.
   */
  proceedRoot?: string | undefined;
  /** How long one prepare call watches a starting container before answering "not ready yet" (default 2 s). */
  readyWaitMs?: number;
  /** One status or gateway read (default 2 s). */
  probeTimeoutMs?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

const POLL_MS = 200;
const MAX_LOG_BYTES = 1024 * 1024;

export function createDockerComputeDriver(options: DockerComputeOptions): ComputeDriver & Required<Pick<ComputeDriver, 'describeRuntime' | 'readLogs' | 'start' | 'close'>> {
  return new DockerCompute(options);
}

/**
 * The ComputeDriver port on a Docker engine: one hardened container per revision (container-spec.ts),
 * Recreate per Agent (the other revisions' containers stop before a new one starts its gateway
 * [P-6]; an OpenClaw candidate installs beside the serving container first, OCC_DOCKER_REDEPLOY), the
 * engine keeping a started runtime running (restart policy) across crashes and OCC restarts.
 * Each Agent has a network of its own (agent-network.ts), made before its first container and
 * removed with its last one; OCC reaches the runtime through ports published on the host's
 * 127.0.0.1 (runtime-ports.ts).
 * Which revision is active is the database's pointer (asked through the start authority), never a
 * container label. Under one in-process lock per Agent; the worker's claim keeps two processes
 * from preparing one Agent at once.
 */
class DockerCompute implements ComputeDriver {
  readonly id = 'docker';
  private readonly docker: Docker;
  private readonly locks = new KeyedMutex();
  /** Container id → the closed code of its last failed start (memory only: a fresh OCC has none). */
  private readonly failures = new Map<string, string>();
  /**
   * Container id → its engine restart count when this process started it (or first watched it):
   * a restart after that, before it was ever ready, is this start failing. Cleared once ready, so
   * a later crash of a running revision is the engine's to handle, not a failed prepare.
   */
  private readonly restartBaseline = new Map<string, number>();
  /** The status versions read, for the worker's wait on the next one (awaitStatusChange). */
  private readonly statusChanges: StatusChanges;
  /** Where candidates prepared beside the serving container find their go; null (no proceedRoot): every redeploy is `recreate`. */
  private readonly markers: ProceedMarkers | null;
  /**
   * Why candidates are no longer prepared beside (memory only): a go written on this host was not
   * in the candidate's mount (a remote engine, a data directory not shared with it), so a restart
   * of such a candidate would hold again. Logged once; later redeploys are `recreate`.
   */
  private besideOff: string | null = null;
  private authority: RuntimeStartAuthority | null = null;
  private closed = false;

  constructor(private readonly options: DockerComputeOptions) {
    this.docker = options.docker ?? new Docker();
    this.statusChanges = new StatusChanges(options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    this.markers = options.proceedRoot ? new ProceedMarkers(options.proceedRoot) : null;
  }

  validateRevision(revision: AgentRevision): void {
    validateRunnableRevision(revision, 'docker');
  }

  /** Keeps `authority` for every start; the worker then restores what the pointers name (containers the engine kept running stay as they are). */
  start(authority: RuntimeStartAuthority): void {
    if (this.authority || this.closed) return;
    this.authority = authority;
  }

  /** Containers keep running when OCC stops: the engine, not this process, runs them. */
  async close(): Promise<void> {
    this.closed = true;
  }

  // ---- the port ----------------------------------------------------------------------------

  async prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, { signal }: ComputeContext): Promise<PrepareResult> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    const manifestJson = JSON.stringify(manifest);
    if (Buffer.byteLength(manifestJson) > MAX_INLINE_MANIFEST_BYTES) {
      return failedPrepare('RUNTIME_MANIFEST_TOO_LARGE', `The runtime manifest is larger than the ${MAX_INLINE_MANIFEST_BYTES} bytes Docker's environment delivers.`);
    }
    const ref: RevisionRef = { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id };
    return this.locks.run(revision.agentId, async () => {
      const image = await this.runtimeImage();
      if ('failure' in image) return image;
      let view = await this.find(ref);
      if (view && !this.onAgentNetwork(view)) {
        // On the host's network (made by an OCC before per-Agent networks): made again below.
        await this.docker.getContainer(view.id).remove({ force: true, v: true });
        view = null;
      }
      if (!view?.running) {
        // Before anything of the Agent stops: a network that cannot be made fails the deploy here.
        const networkFailure = view ? null : await this.agentNetwork(ref);
        if (networkFailure) return networkFailure;
        const beside = view ? this.holdsAgain(view) : await this.preparesBeside(ref, manifest.harness, image);
        // Recreate: the Agent's other containers (its old gateway) stop before this one installs —
        // or, prepared beside them, at the worker's go once it is `prepared` (proceedRevision).
        if (!beside) await this.stopOthers(ref, signal);
        if (!view) {
          const created = await this.create(ref, manifestJson, image.entrypoint, beside);
          if ('failure' in created) return created;
          view = created.view;
        }
        this.failures.delete(view.id);
        await this.startRevision(view);
        this.restartBaseline.set(view.id, containerState(await this.docker.getContainer(view.id).inspect()).restartCount);
      }
      const result = await this.watch(view.id, signal);
      if (result.state === 'failed') {
        // A failed start stops for good (no restart loop); the next prepare starts it afresh, and
        // the worker brings the active revision back (restoreRevision).
        this.failures.set(view.id, result.failure.code);
        await this.stopRevisionContainers(view);
      }
      return result;
    });
  }

  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    const ref: RevisionRef = { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id };
    await this.locks.run(revision.agentId, async () => {
      const view = await this.find(ref);
      if (!view) throw new Error('The revision was not prepared on this Docker engine.');
      await this.stopOthers(ref, signal);
      await this.startRevision(view);
    });
  }

  /**
   * The pointer's revision's containers start again, unless another revision of the Agent runs
   * (Recreate); one that runs already is left as it is. A container no longer on this engine
   * (removed by hand, or lost with the engine's state) is made again from the revision's manifest,
   * and one made by an OCC before per-Agent networks, on the host's network, is never started
   * there: it is made again on the Agent's own, with the manifest it held. Either way under a fresh
   * authorized start.
   */
  async restoreRevision(revision: AgentRevision, manifest: RuntimeManifest, cause: RestoreCause, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    const ref: RevisionRef = { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id };
    await this.locks.run(revision.agentId, async () => {
      const views = await this.list(revision.agentId);
      // Another revision's container running, or in the engine's restart back-off: Recreate keeps the Agent's one slot.
      if (views.some((v) => v.revisionId !== revision.id && isUp(v))) return;
      let view = views.find((v) => v.revisionId === revision.id && v.namespaceId === revision.namespaceId && v.role === 'runtime');
      const skipped = (reason: string) => this.options.log?.('compute.docker.recovery_skipped', { agentId: ref.agentId, revisionId: ref.revisionId, reason });
      if (!view || !this.onAgentNetwork(view)) {
        // What is left of the revision (its app-server container, a host-network runtime) goes first: made again below.
        for (const stale of views.filter((v) => v.revisionId === revision.id)) {
          await this.docker.getContainer(stale.id).remove({ force: true, v: true });
          this.forgetContainer(stale);
        }
        const image = await this.runtimeImage();
        const manifestJson = view?.manifestJson ?? JSON.stringify(manifest);
        const made = 'failure' in image ? image : ((await this.agentNetwork(ref)) ?? (await this.create(ref, manifestJson, image.entrypoint)));
        if ('failure' in made) return skipped(made.failure.code);
        view = made.view;
      }
      // Only a container whose go is not on record can be holding (a periodic check reads nothing of the others).
      const went = view.running && this.awaitsGo(view) ? await this.goIfHeld(ref, view, signal) : false;
      if ((await this.startRevision(view)) || went) this.options.log?.(...restoreEvent('docker', revision, cause));
    });
  }

  async proceedRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    const ref: RevisionRef = { ...agent, revisionId };
    await this.locks.run(agent.agentId, async () => {
      const view = await this.find(ref);
      if (view?.running) await this.goIfHeld(ref, view, signal);
    });
  }

  awaitStatusChange(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    return this.statusChanges.awaitChange(`${agent.agentId}/${revisionId}`, signal);
  }

  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    await this.locks.run(agent.agentId, async () => {
      const views = await this.list(agent.agentId);
      // The Agent runs one runtime at a time: whatever of it runs stops with it — except beside a
      // candidate not yet told to go, where what runs is the serving revision, which stays.
      const beside = views.some((v) => v.revisionId === revisionId && this.awaitsGo(v));
      for (const view of views) if (view.revisionId === revisionId || (isUp(view) && !beside)) await this.stopContainer(view.id);
    });
  }

  async retireRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    await this.locks.run(agent.agentId, async () => {
      // The runtime container and, for a Codex revision, its app-server container.
      for (const view of (await this.list(agent.agentId)).filter((v) => v.revisionId === revisionId)) {
        await this.docker.getContainer(view.id).remove({ force: true, v: true });
        this.forgetContainer(view);
      }
      this.statusChanges.forget(`${agent.agentId}/${revisionId}`);
      // The Agent's network goes with its last container (a stopped one still needs it to start again).
      if ((await this.list(agent.agentId)).length === 0) await removeAgentNetwork(this.docker, this.options.settings, agent.agentId);
    });
  }

  /** The deleted Agent's containers, volumes and network (remove-agent.ts). */
  async removeAgent(agent: AgentRef, { signal }: ComputeContext): Promise<RemovedResource[]> {
    signal.throwIfAborted();
    return this.locks.run(agent.agentId, async () => {
      const views = await this.list(agent.agentId);
      const removed = await removeAgentFromEngine(this.docker, this.options.settings, agent.agentId, signal);
      for (const view of views) {
        this.forgetContainer(view);
        this.statusChanges.forget(`${view.agentId}/${view.revisionId}`);
      }
      return removed;
    });
  }

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    const view = await this.find({ ...agent, revisionId });
    if (!view) return noRuntime();
    // Each read gets its own deadline; one that runs out reads as "not known now", never an error.
    const probe = () => AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    const seen = view.running ? await this.observe(view, probe()).catch(() => null) : null;
    const serving = seen?.observation.kind === 'ready' && (await this.gatewayServes(view, seen.observation.gatewayPort, probe()).catch(() => false));
    return describeObserved(view.running, seen?.observation ?? null, serving, {
      startupId: seen?.startupId ?? null,
      restarts: view.restartCount,
      deliveredSecrets: view.running ? view.deliveredSecrets : [],
      lastFailureCode: this.failures.get(view.id) ?? null,
    });
  }

  /** The message goes to the revision's gateway through the relay port published on 127.0.0.1, with the container's own token. */
  async sendMessage(agent: AgentRef, revisionId: string, message: GatewayMessage, signal: AbortSignal): Promise<GatewayReply> {
    const view = await this.find({ ...agent, revisionId });
    if (!view?.running) return { kind: 'not-serving', state: view?.restarting ? 'its container is restarting' : view ? 'its container is stopped' : 'it has no container' };
    const seen = await this.observe(view, AbortSignal.any([signal, AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)])).catch(() => null);
    const observation = seen?.observation ?? null;
    if (observation?.kind !== 'ready') return notServingYet(observation);
    const port = hostPortFor(view.published, observation.gatewayPort);
    if (port === null) return { kind: 'unavailable', reason: "The Agent's gateway port is not published on this host." };
    return relayToGateway({ port, token: view.tokens.gateway }, message, { redact: view.secretValues, signal });
  }

  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const view = await this.find({ ...agent, revisionId });
    if (!view) return { lines: [], truncated: false };
    const lines = tailLength(tail);
    const raw = (await this.docker.getContainer(view.id).logs({ stdout: true, stderr: true, follow: false, tail: lines + 1 })) as unknown as Buffer;
    // OpenClaw, npm and plugins print to the same log: a reader with Agent read never sees a
    // token or a delivered value.
    const last = lastLines(demuxLog(raw.subarray(Math.max(0, raw.length - MAX_LOG_BYTES))), lines, lineRedactor(view.secretValues));
    return { lines: last.lines, truncated: last.truncated || raw.length > MAX_LOG_BYTES };
  }

  // ---- containers ---------------------------------------------------------------------------

  /**
   * The image's entrypoint with the gateway relay preloaded (runtime-ports.ts), and whether its
   * runtime holds for a go it finds recorded (an image built before that label is never asked to
   * hold: it would start its gateway beside the serving one); or why there is none.
   */
  private async runtimeImage(): Promise<{ entrypoint: string[]; holdsForGo: boolean } | FailedPrepare> {
    try {
      const { Config } = await this.docker.getImage(this.options.settings.image).inspect();
      const entrypoint = withGatewayRelay(Config.Entrypoint as string[] | null);
      if (!entrypoint) return failedPrepare('RUNTIME_IMAGE_UNAVAILABLE', "The runtime image's entrypoint does not start Node: it is not an OCC runtime image.");
      return { entrypoint, holdsForGo: Config.Labels?.[RUNTIME_IMAGE_HOLDS_LABEL] === '1' };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return failedPrepare('RUNTIME_IMAGE_UNAVAILABLE', 'The runtime image is not on the Docker engine.');
      throw error;
    }
  }

  private onAgentNetwork(view: ContainerView): boolean {
    return view.networkMode === networkName(this.options.settings.installation, view.agentId);
  }

  /** The revision's container, inspected (null when none exists). */
  private async find(ref: RevisionRef): Promise<ContainerView | null> {
    try {
      const view = containerState(await this.docker.getContainer(containerName(this.options.settings.installation, ref)).inspect());
      return view.agentId === ref.agentId && view.revisionId === ref.revisionId && view.namespaceId === ref.namespaceId ? view : null;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw error;
    }
  }

  /** Every container of one Agent in this installation, inspected. */
  private async list(agentId: string): Promise<ContainerView[]> {
    const found = await this.docker.listContainers({ all: true, filters: { label: labelFilter(this.options.settings.installation, { agentId }) } });
    return Promise.all(found.map(async (c) => containerState(await this.docker.getContainer(c.Id).inspect())));
  }

  /** What this process kept of a removed container, and its go's directory. */
  private forgetContainer(view: ContainerView): void {
    this.failures.delete(view.id);
    this.restartBaseline.delete(view.id);
    if (view.proceedDir !== null) this.markers?.remove(view.proceedDir);
  }

  /**
   * Whether a new candidate prepares beside the Agent's running containers (OCC_DOCKER_REDEPLOY,
   * settings.ts): an OpenClaw one, with something of the Agent running, on an image whose runtime
   * holds for a recorded go. A Codex candidate keeps Recreate before its start: its two containers
   * start together and the runtime's Codex path has no hold.
   */
  private async preparesBeside(ref: RevisionRef, harness: string, image: { holdsForGo: boolean }): Promise<boolean> {
    if (this.options.settings.redeploy !== 'prepare-beside' || this.markers === null || this.besideOff !== null || !image.holdsForGo || harness !== 'openclaw') return false;
    return (await this.list(ref.agentId)).some((view) => view.revisionId !== ref.revisionId && isUp(view));
  }

  /**
   * A stopped container made to hold holds again at its next start: a go recorded at an earlier
   * one is taken back, and given anew once the others have stopped. False when it stays recorded
   * (a directory outside this driver's root: that start goes straight on, so Recreate stops first).
   */
  private holdsAgain(view: ContainerView): boolean {
    return view.proceedDir !== null && this.markers?.clear(view.proceedDir) === true;
  }

  /** A candidate created to hold beside the serving container that has not been told to go yet. */
  private awaitsGo(view: ContainerView): boolean {
    return view.proceedDir !== null && this.markers !== null && !this.markers.given(view.proceedDir);
  }

  /**
   * The container holds in `prepared`: Recreate now — the Agent's other containers stop, the go is
   * recorded where a restart of it finds it (proceed-marker.ts), then the runtime is told (its stale
   * removal, then its gateway): two gateways never serve the Agent. Idempotent: a go that was not
   * taken is given again at the worker's next look. Under the Agent's lock.
   */
  private async proceed(ref: RevisionRef, view: ContainerView, statusPort: number, signal: AbortSignal): Promise<void> {
    await this.stopOthers(ref, signal);
    if (view.proceedDir !== null && !(await this.recordGo(view))) {
      // This start still gets its go; a restart of it would hold again, so no later candidate is prepared beside.
      this.besideOff ??= 'the go is not visible inside the candidate';
      this.options.log?.('compute.docker.proceed_not_recorded', { agentId: ref.agentId, revisionId: ref.revisionId, preparesBeside: false });
    }
    if (!(await requestProceed(statusPort, view.tokens.status, signal, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS))) return;
    this.options.log?.('compute.docker.candidate_proceeds', { agentId: ref.agentId, revisionId: ref.revisionId });
  }

  /**
   * The go, if the container holds for one now (read from its status): at the worker's go
   * (proceedRevision), and when the pointer's container holds for a go it does not find (a restart
   * whose mount lost the record; restoreRevision, whose rule says nothing else of the Agent runs).
   * True when it gave one.
   */
  private async goIfHeld(ref: RevisionRef, view: ContainerView, signal: AbortSignal): Promise<boolean> {
    const seen = await this.observe(view, AbortSignal.any([signal, AbortSignal.timeout(this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)])).catch(() => null);
    if (!(seen?.observation.kind === 'starting' && seen.observation.prepared === true && seen.statusPort !== null)) return false;
    await this.proceed(ref, view, seen.statusPort, signal);
    return true;
  }

  /** Writes the go and checks the container sees it (its mount is this host's directory): false when it does not. */
  private async recordGo(view: ContainerView): Promise<boolean> {
    if (!this.markers?.give(view.proceedDir!)) return false;
    try {
      const head = (await this.docker.getContainer(view.id).infoArchive({ path: `${CONTAINER_PATHS.proceed}/${PROCEED_MARKER}` })) as { destroy?: () => void };
      head.destroy?.();
      return true;
    } catch {
      return false;
    }
  }

  /** Every other container of the Agent stops — one the engine is restarting too (it would come back beside the new one). */
  private async stopOthers(ref: RevisionRef, signal: AbortSignal): Promise<void> {
    for (const view of await this.list(ref.agentId)) {
      signal.throwIfAborted();
      if (view.revisionId !== ref.revisionId && isUp(view)) await this.stopContainer(view.id);
    }
  }

  private async stopContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: 25 });
    } catch (error) {
      // 304: already stopped; 404: already gone.
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 304 && status !== 404) throw error;
    }
  }

  /** A Codex revision's app-server container (codex-app-server.ts), inspected; null for every other revision. */
  private async appServerOf(view: ContainerView): Promise<ContainerView | null> {
    try {
      const found = containerState(await this.docker.getContainer(appServerContainerName(containerName(this.options.settings.installation, view))).inspect());
      return found.role === 'app-server' && found.agentId === view.agentId && found.revisionId === view.revisionId ? found : null;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw error;
    }
  }

  /**
   * Starts what is stopped of the revision: its app-server container first (the gateway waits for
   * it), then its runtime; one in the engine's restart back-off is the engine's. True when it started one.
   */
  private async startRevision(view: ContainerView): Promise<boolean> {
    const appServer = await this.appServerOf(view);
    const appServerStopped = appServer !== null && !isUp(appServer);
    if (appServerStopped) await this.docker.getContainer(appServer.id).start();
    if (!isUp(view)) await this.docker.getContainer(view.id).start();
    return appServerStopped || !isUp(view);
  }

  private async stopRevisionContainers(view: ContainerView): Promise<void> {
    await this.stopContainer(view.id);
    const appServer = await this.appServerOf(view);
    if (appServer) await this.stopContainer(appServer.id);
  }

  /** The Agent's own network, made if missing (agent-network.ts); a failure when the engine cannot give one. */
  private async agentNetwork(ref: RevisionRef): Promise<FailedPrepare | null> {
    const problem = await ensureAgentNetwork(this.docker, this.options.settings, ref);
    return problem === null ? null : failedPrepare('COMPUTE_REQUEST_REJECTED', problem);
  }

  /**
   * Creates the revision's container inside one authorized start: the Secrets the control plane
   * delivers now go into its environment and nowhere else. A refusal is this prepare's failure.
   */
  private async create(ref: RevisionRef, manifestJson: string, entrypoint: string[], beside = false): Promise<{ view: ContainerView } | FailedPrepare> {
    const authority = startAuthority(this.authority, this.id);
    try {
      return await authority.withStartEnvironment(ref, async ({ variables, harnessAuth }) => {
        const input = {
          settings: this.options.settings,
          revision: ref as RevisionIdentity,
          manifestJson,
          tokens: newTokens(),
          secrets: variables,
          codexPat: harnessAuth?.value,
          network: this.options.network ?? {},
          catalogFile: this.options.catalog,
          npmRegistry: this.options.npmRegistry,
          unselectedPlugins: this.options.unselectedPlugins,
          codex: this.options.codex,
          harness: (JSON.parse(manifestJson) as Pick<RuntimeManifest, 'harness'>).harness,
          entrypoint,
          proceedDir: beside && this.markers ? this.markers.fresh(containerName(this.options.settings.installation, ref)) : undefined,
        };
        const spec = containerSpec(input);
        // A Codex revision's app-server container first: a runtime container never exists without it.
        if (input.harness === 'codex') await this.docker.createContainer(containerSpec({ ...input, codexRole: 'app-server' }));
        const container = await this.docker.createContainer(spec).catch((error: unknown) => {
          if (input.proceedDir !== undefined) this.markers?.remove(input.proceedDir);
          throw error;
        });
        this.options.log?.('compute.docker.created', { agentId: ref.agentId, revisionId: ref.revisionId, container: container.id.slice(0, 12) });
        return { view: containerState(await container.inspect()) };
      });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      const failure = startFailureOf(error);
      return failedPrepare(failure.code, failure.message);
    }
  }

  // ---- status ---------------------------------------------------------------------------------

  /** One prepare's watch of a starting container (runtime-contract/prepare-watch.ts). */
  private watch(id: string, signal: AbortSignal): Promise<PrepareResult> {
    return watchPrepare(
      async () => {
        const view = containerState(await this.docker.getContainer(id).inspect());
        if (!this.restartBaseline.has(id)) this.restartBaseline.set(id, view.restartCount);
        // A start that exited before it was ever ready failed this attempt (the engine would restart it forever).
        if (view.restartCount > this.restartBaseline.get(id)! || (!view.running && !view.restarting)) {
          this.restartBaseline.delete(id);
          return failedPrepare('RUNTIME_EXITED');
        }
        if (!view.running) return RESTARTING;
        const { observation } = await this.observe(view, signal);
        const serving = observation.kind === 'ready' && (await this.gatewayServes(view, observation.gatewayPort, signal));
        if (serving) this.restartBaseline.delete(id);
        return prepareResultOf(observation, serving);
      },
      { waitMs: this.options.readyWaitMs ?? DEFAULT_READY_WAIT_MS, pollMs: POLL_MS, signal },
    );
  }

  /**
   * One look at a running container: the startup id and status port its runtime announced since
   * the container's CURRENT start (a restart announces a new id: recomputed, never cached), then
   * its status judged against the revision's admitted selections [S-2].
   */
  private async observe(view: ContainerView, signal: AbortSignal): Promise<{ observation: Observation; startupId: string | null; statusPort: number | null }> {
    const raw = (await this.docker
      .getContainer(view.id)
      .logs({ stdout: true, stderr: true, follow: false, since: sinceOf(view.startedAt) as unknown as number })) as unknown as Buffer;
    const endpoint = announcedEndpoint(demuxLog(raw));
    if (!endpoint) return { observation: { kind: 'starting' }, startupId: null, statusPort: null };
    // Read on the host port published for the announced one; a port OCC did not publish is never dialled.
    const port = hostPortFor(view.published, endpoint.statusPort);
    if (port === null) return { observation: { kind: 'starting' }, startupId: endpoint.startupId, statusPort: null };
    const read = await fetchStartupStatus(port, view.tokens.status, signal, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    this.statusChanges.record(`${view.agentId}/${view.revisionId}`, port, view.tokens.status, read);
    const { selections, enabled } = revisionOf(view);
    return {
      observation: observeStatus(read, { revisionId: view.revisionId, startupId: endpoint.startupId, selections, enabled }),
      startupId: endpoint.startupId,
      statusPort: port,
    };
  }

  /** `port`: the gateway's port inside the container, as its status reports it; asked through the relay's published port. */
  private async gatewayServes(view: ContainerView, port: number, signal: AbortSignal): Promise<boolean> {
    const hostPort = hostPortFor(view.published, port);
    return hostPort !== null && gatewayServes(this.options.probeGateway, hostPort, view.tokens.gateway, signal, this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  }
}

/** Running, or about to run again (the engine's restart back-off). */
function isUp(view: ContainerView): boolean {
  return view.running || view.restarting;
}

/** Fresh per container: a recreated revision never shares a token with an earlier container. */
function newTokens(): RuntimeTokens {
  const token = () => randomBytes(32).toString('base64url');
  return { status: token(), gateway: token(), transport: token() };
}
