// The agent runtime as a function: `runRuntime(env, deps)` serves its startup status from the
// first moment, prepares the revision, then publishes ready and supervises the gateway; a failed
// startup keeps serving `failed` until stopped. Contract: README.md. The process entry that a
// compute driver starts is entry.ts; tests run this function with recorded CLI outputs.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedRuntime, RuntimeManifest, StartupStatus } from '@occ/contracts';
import { normalizeNativeName, type CodexBridgeConfig } from '@occ/policy';
import { codexProcessEnvironment } from './codex/app-server-env.ts';
import { APP_SERVER_TOKEN_VARIABLE, codexGatewayConfig, codexGatewayOverlay, findCodexGatewayConflicts } from './codex/gateway-config.ts';
import { ensureHarnessPlugin } from './codex/harness-plugin.ts';
import { codexReadBack, lockedDownCodexBase, mergeOverlays } from './codex/gateway-lockdown.ts';
import { prepareCodexHome } from './codex/home.ts';
import { appServerCredential } from './codex/credential.ts';
import { startCodexPeer, type CodexPeer } from './codex/peer.ts';
import { startPeerRelay, type PeerRelay } from './codex/peer-relay.ts';
import { awaitPeer, peerChanged, publishedPeer, readPeerAssets } from './codex/peer-status.ts';
import { bundleSkills, unpackSkills } from './codex/skills-bundle.ts';
import { verifyAdmittedPolicy } from './effective-config.ts';
import { loadCatalog } from './catalog.ts';
import { readRuntimeEnvironment, type ListenAddress, type RuntimeEnvironment } from './environment.ts';
import { guardConfig } from './config-guard.ts';
import { asStartupFailure, StartupFailure } from './failure.ts';
import { freeLoopbackPort } from './free-port.ts';
import type { GatewayDegradation, RunningGateway } from './gateway.ts';
import { readBackGateway } from './gateway-readback.ts';
import { logEvent } from './log.ts';
import { readManifest } from './manifest.ts';
import { OpenClawCli, openclawEnvironment } from './openclaw-cli.ts';
import { CliCommands, type OpenClawCommands } from './openclaw-commands.ts';
import { prepareRevision, type PreparedRevision } from './prepare.ts';
import { copyMissingContent, npmContentUnder } from '@occ/host-io/npm-content';
import { writePrivateFileAtomic } from '@occ/host-io/private-files';
import { LOOPBACK_ADDRESS, revisionConfigPath, setGatewayBindHost, writeRevisionConfig } from './revision-config.ts';
import { startStatusServer, type StatusHandlers, type StatusServer } from './status-server.ts';
import { portOwnership, type PortOwnership } from './port-owner.ts';
import { pinnedToolchain, type PinnedToolchain } from './toolchain.ts';
import { removePlantedState } from './planted-state.ts';
import { StartupProgress } from './progress.ts';
import { ProceedGate } from './proceed-gate.ts';

const GATEWAY_STOP_GRACE_MS = 20_000;
/** Reading back the serving gateway's tools (one CLI process). */
const TOOLS_READ_TIMEOUT_MS = 60_000;
/** How long the runtime keeps asking a gateway that does not answer yet what it loaded. */
const GATEWAY_READ_DEADLINE_MS = 120_000;
/** How long the gateway may take to listen on its port, and how often that is checked. */
const GATEWAY_LISTEN_DEADLINE_MS = 120_000;
const GATEWAY_LISTEN_POLL_MS = 100;
/** More app-server exits than this within the window fail the startup instead of restarting again. */
const MAX_PEER_RESTARTS = 3;
const PEER_RESTART_WINDOW_MS = 10 * 60_000;

/** What the runtime needs from the world; `productionDeps()` is the real one. */
export interface RuntimeDeps {
  toolchain: PinnedToolchain;
  /** The OpenClaw CLI for this revision, given the environment every OpenClaw process gets. */
  commands(toolchain: PinnedToolchain, env: Record<string, string>): OpenClawCommands;
  startStatusServer(token: string, current: () => StartupStatus, listen: ListenAddress, handlers?: StatusHandlers): Promise<StatusServer>;
  freePort(): Promise<number>;
  /** Who listens on the gateway's port: the gateway's process tree, nobody yet, or another process. */
  portOwner(port: number, gatewayPid: number, address?: string): PortOwnership;
  now(): number;
  newStartupId(): string;
  /** The pid endpoint.json names (the process a driver signals). */
  pid: number;
  /** The working directory the OpenClaw processes inherit: OpenClaw loads a `.env` found there (planted-state.ts). */
  workingDir: string;
}

export function productionDeps(): RuntimeDeps {
  return {
    toolchain: pinnedToolchain(),
    commands: (toolchain, env) => new CliCommands(new OpenClawCli(toolchain, env), toolchain),
    startStatusServer,
    freePort: freeLoopbackPort,
    portOwner: portOwnership,
    now: Date.now,
    newStartupId: () => randomBytes(18).toString('base64url'),
    pid: process.pid,
    workingDir: process.cwd(),
  };
}

export interface RuntimeHandle {
  /** The status being served (tests; the driver reads it over HTTP). */
  status(): StartupStatus;
  /** SIGTERM/SIGINT: cancel CLI commands, stop the gateway (grace, then SIGKILL), close the status server. */
  stop(signal: string): Promise<void>;
  /** The exit code the process should end with: 0 after stop, 1 when the gateway exited on its own, 2 when nothing could be served. */
  exitCode: Promise<number>;
}

/**
 * Starts the runtime. Resolves once the status server listens and endpoint.json is written
 * (or at once with exit code 2 when there is no status token or revision directory); the
 * preparation and the gateway go on in the background. The two tokens and the Secret variables
 * are deleted from `env` as they are read.
 */
export async function runRuntime(env: NodeJS.ProcessEnv, deps: RuntimeDeps): Promise<RuntimeHandle> {
  const startedAt = deps.now();
  const startupId = deps.newStartupId();
  const environment = readRuntimeEnvironment(env);
  if (environment.statusToken === null || environment.revisionDir === null || environment.statusListen === null) {
    logEvent('startup.unservable', { code: 'RUNTIME_ENVIRONMENT_INVALID' });
    return {
      status: () => ({ revisionId: '', startupId, phase: 'failed', plugins: [], failures: [], gatewayPort: null, error: null }),
      stop: async () => {},
      exitCode: Promise.resolve(2),
    };
  }

  let status: StartupStatus = { revisionId: '', startupId, phase: 'preparing', plugins: [], failures: [], gatewayPort: null, error: null };
  const progress = new StartupProgress();
  /** What the status endpoint serves: the status with this startup's progress so far. */
  const served = (): StartupStatus => ({ ...status, progress: progress.list() });
  const shutdown = new AbortController();
  let gateway: RunningGateway | null = null;
  let codexPeer: CodexPeer | null = null;
  let cli: OpenClawCommands | null = null;
  let stopping = false;
  let exit!: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => (exit = resolve));

  // A Codex app-server runtime also hands its gateway's runtime the plugin skills (skills-bundle.ts).
  let skillsBundle: Buffer | null = null;
  const settings = environment.result instanceof StartupFailure ? null : environment.result;
  // Told to proceed in an earlier start of this container: the engine restarted it, nothing to wait for.
  const proceededBefore = settings?.holdBeforeGateway === true && settings.proceedMarker !== null && existsSync(settings.proceedMarker);
  const gate = new ProceedGate(settings?.holdBeforeGateway === true && !proceededBefore);
  const server = await deps.startStatusServer(environment.statusToken, served, environment.statusListen, {
    assets: () => skillsBundle,
    ...(gate.holds ? { proceed: () => gate.open() } : {}),
  });
  writePrivateFileAtomic(join(environment.revisionDir, 'endpoint.json'), `${JSON.stringify({ pid: deps.pid, statusPort: server.port, startupId })}\n`);
  logEvent('startup.serving', { startupId, statusPort: server.port });
  if (proceededBefore) logEvent('startup.proceeded_before', {});

  async function stop(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logEvent('runtime.stopping', { signal });
    shutdown.abort();
    const commandsStopped = cli?.stopAll();
    if (gateway !== null) {
      const stopped = await gateway.stop(GATEWAY_STOP_GRACE_MS);
      logEvent('gateway.stopped', { code: stopped.code, signal: stopped.signal });
    }
    await commandsStopped;
    await codexPeer?.stop();
    await server.close();
    exit(0);
  }

  function fail(error: unknown): void {
    const failure = asStartupFailure(error);
    if (!(error instanceof StartupFailure)) logEvent('startup.unexpected', { error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown' });
    const detail = failure.detail ? { detail: failure.detail } : {};
    status = { ...status, phase: 'failed', gatewayPort: null, error: { code: failure.code, message: failure.message, ...detail } };
    progress.failed(failure.code, { message: failure.message, ms: deps.now() - startedAt });
  }

  /** The Secret variables the manifest names, taken out of `env` (only the gateway gets them). */
  function takeSecrets(names: readonly string[]): Record<string, string> {
    const secrets: Record<string, string> = {};
    for (const name of names) {
      const value = env[name];
      delete env[name];
      if (value !== undefined) secrets[name] = value;
    }
    const missing = names.filter((name) => !Object.hasOwn(secrets, name));
    // A count: the runtime log is readable with Agent read, and the names are Configuration content.
    if (missing.length > 0) logEvent('secrets.missing', { count: missing.length });
    return secrets;
  }

  async function run(runtimeEnv: RuntimeEnvironment | StartupFailure): Promise<void> {
    if (runtimeEnv instanceof StartupFailure) throw runtimeEnv;
    const manifest = readManifest(runtimeEnv.manifest);
    status = { ...status, revisionId: manifest.revisionId ?? '' };
    if (manifest.result instanceof StartupFailure) throw manifest.result;
    // The app-server half of a Codex revision runs no OpenClaw and gets no Configuration Secret.
    if (manifest.result.harness === 'codex' && runtimeEnv.codexRole === 'app-server') return runCodexAppServer(runtimeEnv, manifest.result);
    const secrets = takeSecrets(manifest.result.secretEnvironment);
    const configPath = revisionConfigPath(runtimeEnv.revisionDir);
    const { toolchain } = deps;
    cli = deps.commands(
      toolchain,
      openclawEnvironment({
        toolchain,
        path: runtimeEnv.path,
        home: runtimeEnv.home,
        lang: runtimeEnv.lang,
        tmpDir: runtimeEnv.tmpDir,
        stateDir: runtimeEnv.stateDir,
        configPath,
        npmRegistry: runtimeEnv.npmRegistry,
        network: runtimeEnv.network,
      }),
    );
    // Nothing planted in the Agent's state loads again.
    removePlantedState(runtimeEnv.stateDir, deps.workingDir);
    // Each harness keeps its own startup path ([W-3]); they share the gateway launch and the status.
    if (manifest.result.harness === 'codex') {
      return runtimeEnv.codexRole === 'gateway'
        ? runCodexGateway(runtimeEnv, manifest.result, cli, configPath, secrets)
        : runCodex(runtimeEnv, manifest.result, cli, configPath, secrets);
    }
    const catalog = loadCatalog(runtimeEnv.catalogPath, deps.toolchain);
    seedNpmCache(runtimeEnv);
    const prepared = await prepareRevision({
      cli,
      catalog,
      manifest: manifest.result,
      configPath,
      stateDir: runtimeEnv.stateDir,
      installTimeoutMs: runtimeEnv.installTimeoutMs,
      unselectedPlugins: runtimeEnv.unselectedPlugins,
      signal: shutdown.signal,
      progress,
      installHelp: deps.toolchain.installHelp,
      beforeStateChanges: awaitProceed,
    });
    if (stopping || !(await awaitProceed())) return;
    const started = await launchGateway(cli, runtimeEnv, configPath, secrets, prepared);
    if (started === null) return;
    const exited = await started.exited;
    if (stopping) return;
    logEvent('gateway.exited', { code: exited.code, signal: exited.signal });
    exit(1);
  }

  /**
   * The installation's npm content store (read-only, OCC_RUNTIME_NPM_CONTENT) into this runtime's
   * own npm cache, so installs find what another Agent downloaded (docs/deployments.md, "A shared
   * npm cache"); npm verifies each tarball against its integrity on read. Never fails the start.
   */
  function seedNpmCache(runtimeEnv: RuntimeEnvironment): void {
    if (runtimeEnv.npmContent === null) return;
    try {
      logEvent('npm.content.seeded', { files: copyMissingContent(runtimeEnv.npmContent, npmContentUnder(runtimeEnv.home)) });
    } catch (error) {
      logEvent('npm.content.unavailable', { error: error instanceof Error ? error.name : 'unknown' });
    }
  }

  /**
   * A runtime that prepares beside the Agent's serving gateway (ProceedGate) publishes `prepared`
   * and waits for the driver's go before it changes the Agent's state; false when it is stopping.
   */
  async function awaitProceed(): Promise<boolean> {
    const go = await gate.pass(shutdown.signal, () => {
      status = { ...status, phase: 'prepared' };
      logEvent('startup.prepared', { ms: deps.now() - startedAt });
    });
    if (!go || stopping) return false;
    if (status.phase === 'prepared') {
      status = { ...status, phase: 'preparing' };
      logEvent('startup.proceeding', { ms: deps.now() - startedAt });
    }
    return true;
  }

  /**
   * Starts the gateway where the driver asked (default: loopback, on a fresh port) and publishes
   * `ready` with what was prepared once it listens; null when the runtime is stopping. Throws a
   * StartupFailure when it cannot serve. `expectedConfig`: the bytes the runtime wrote and
   * verified, where the Agent's tools may have run since (a Codex gateway started again); null:
   * the file as it is now (a fresh start: nothing of the Agent runs yet).
   */
  async function launchGateway(
    commands: OpenClawCommands,
    runtimeEnv: RuntimeEnvironment,
    configPath: string,
    environment: Record<string, string>,
    prepared: Pick<PreparedRevision, 'plugins' | 'failures' | 'readBack' | 'warnedPlugins'>,
    expectedConfig: Buffer | null = null,
  ): Promise<RunningGateway | null> {
    // The prepare's OpenClaw process (openclaw-session.ts) has exited before the gateway opens the Agent's state.
    await commands.endSession();
    const listen: ListenAddress = runtimeEnv.gateway;
    let port = listen.port;
    if (port === 0) {
      try {
        port = await deps.freePort();
      } catch {
        throw new StartupFailure('GATEWAY_START_FAILED', 'No loopback port was available for the gateway.');
      }
    }
    if (stopping) return null;
    // A pod's gateway listens on the pod's address: OpenClaw takes a custom bind host from its configuration only.
    const custom = listen.host !== LOOPBACK_ADDRESS;
    const written = custom ? setGatewayBindHost(configPath, listen.host, expectedConfig) : expectedConfig;
    const started = commands.startGateway({ port, token: runtimeEnv.gatewayToken, secrets: environment, ...(custom ? { bindHost: listen.host } : {}) });
    gateway = started;
    logEvent('gateway.started', { pid: started.pid, port });
    // An edit of its configuration while it runs (the Agent's own tools can make one) ends the
    // gateway before OpenClaw applies it; the runtime then exits as for any gateway exit, and the
    // next start writes the revision's configuration again.
    const guard = guardConfig(
      configPath,
      () => {
        logEvent('gateway.config_changed', { pid: started.pid });
        void started.stop(0);
      },
      { expected: written },
    );
    void started.exited.then(() => guard.close());
    // The port was free when it was picked, not necessarily when the gateway binds it. Nobody
    // learns the port (and so nobody sends the gateway token to it) until every listener on it
    // is the gateway's own; another process there fails the startup closed.
    const owner = await waitForListener(port, started, custom ? listen.host : undefined);
    if (stopping) return null;
    if (owner === 'another process' || owner === 'deadline' || owner === 'unverifiable') {
      gateway = null;
      await started.stop(GATEWAY_STOP_GRACE_MS);
      if (owner === 'another process') throw new StartupFailure('GATEWAY_PORT_TAKEN', 'Another process took the loopback port chosen for the gateway.');
      throw new StartupFailure(
        'GATEWAY_START_FAILED',
        owner === 'unverifiable' ? 'The runtime needs Linux /proc to prove the gateway owns its port.' : 'The gateway did not listen on its port in time.',
      );
    }
    let loaded: LoadedRuntime | null = null;
    if (owner === 'gateway') {
      try {
        if (prepared.readBack)
          loaded = await readBackGateway(commands, { port, token: runtimeEnv.gatewayToken }, prepared.readBack, {
            timeoutMs: TOOLS_READ_TIMEOUT_MS,
            deadlineMs: GATEWAY_READ_DEADLINE_MS,
            signal: shutdown.signal,
          });
        throwIfDegraded(started.degradation(), prepared.warnedPlugins, loaded);
      } catch (error) {
        gateway = null;
        await started.stop(GATEWAY_STOP_GRACE_MS);
        throw error;
      }
      if (stopping) return null;
    }
    if (owner === 'gateway') {
      status = { ...status, phase: 'ready', plugins: prepared.plugins, failures: prepared.failures, gatewayPort: port, error: null, ...(loaded ? { loaded } : {}) };
      progress.ready({ plugins: prepared.plugins, failures: prepared.failures.map((f) => `${f.pluginId} ${f.code}`), gatewayPort: port, ms: deps.now() - startedAt });
    }
    return started;
  }

  /**
   * Said once, before it listened. A gateway that tried to install a plugin by itself, or whose
   * state migration failed, is not a clean start (RUNTIME_DEGRADED, naming the plugins). An
   * unfinished plugin upgrade counts only for a plugin it runs that is not already this deploy's
   * warning ([W-1]): a failed install leaves one pending in the Agent's state for good, which
   * must not fail every later revision that no longer has that plugin.
   */
  function throwIfDegraded(said: GatewayDegradation, warned: ReadonlySet<string>, loaded: LoadedRuntime | null): void {
    if (!said.degraded && said.selfInstalls.length === 0) return;
    const running = loaded === null ? null : new Set(loaded.plugins.map((plugin) => normalizeNativeName(plugin.id)));
    const unexplained = said.unfinished.filter((pluginId) => !warned.has(normalizeNativeName(pluginId)) && (running === null || running.has(normalizeNativeName(pluginId))));
    logEvent('gateway.degraded', { unfinished: said.unfinished, selfInstalls: said.selfInstalls, unexplained });
    if (said.selfInstalls.length > 0) {
      throw new StartupFailure('RUNTIME_DEGRADED', `The gateway tried to install plugin ${said.selfInstalls.join(', ')} by itself.`.slice(0, 256));
    }
    if (said.unfinished.length > 0 && unexplained.length === 0) return;
    const which = unexplained.length > 0 ? `: plugin ${unexplained.join(', ')}` : ' (a state migration failed)';
    throw new StartupFailure('RUNTIME_DEGRADED', `The gateway said it started on degraded state${which}; its log says what failed.`.slice(0, 256));
  }

  /**
   * The Codex harness ([W-3]): a dedicated app-server per peer startup, prepared, then the gateway
   * given that startup's credential. When the app-server goes away the status turns non-ready,
   * only OpenClaw is stopped, a new peer startup (new credential) is prepared again and the gateway
   * restarted with it ([G-9], [G-2]); a gateway that exits on its own ends the runtime ([G-10]).
   */
  async function runCodex(
    runtimeEnv: RuntimeEnvironment,
    manifest: RuntimeManifest,
    commands: OpenClawCommands,
    configPath: string,
    secrets: Record<string, string>,
  ): Promise<void> {
    const transportSecret = requireTransportSecret(runtimeEnv);
    const app = codexAppServerSetup(runtimeEnv, manifest);
    const governed = governCodexGateway(runtimeEnv, manifest);
    const startPeer = (peerStartupId: string) => app.start(peerStartupId, transportSecret, { host: LOOPBACK_ADDRESS, port: 0 });
    // The first peer prepares (its app-server, CODEX_HOME, the plugins' skills) while the harness
    // goes into the Agent's OpenClaw state: neither reads what the other writes, and the two roles of
    // the container targets run them at once too (runCodexGateway, runCodexAppServer). The harness's
    // OpenClaw process stays open for the first gateway's verification (startCodexGateway ends it):
    // one cold OpenClaw load fewer.
    const [harness, first] = await Promise.allSettled([installCodexHarness(runtimeEnv, commands, { keepSession: true }), startPeer(startupId)]);
    if (harness.status === 'rejected' || first.status === 'rejected') {
      await commands.endSession();
      if (first.status === 'fulfilled') await first.value.stop();
      throw harness.status === 'rejected' ? harness.reason : (first as PromiseRejectedResult).reason;
    }
    const restarts: number[] = [];
    for (let peer = first.value; ; peer = await startPeer(deps.newStartupId())) {
      codexPeer = peer;
      // stop() may have run while the peer was starting, before it could see it.
      if (stopping) return peer.stop();
      let started: RunningGateway | null;
      try {
        started = await startCodexGateway(commands, runtimeEnv, configPath, secrets, governed, {
          bridge: peer.prepared.artifact.bridge,
          appServerUrl: peer.gate.url,
          credential: peer.credential,
          prepared: peer.prepared,
        });
      } catch (error) {
        // A failed startup keeps serving its status; it does not keep an app-server running.
        codexPeer = null;
        await peer.stop();
        throw error;
      }
      if (started === null) return;
      const ended = await Promise.race([started.exited.then(() => 'gateway' as const), peer.server.exited.then(() => 'peer' as const)]);
      if (stopping) return;
      if (ended === 'gateway') {
        const exited = await started.exited;
        logEvent('gateway.exited', { code: exited.code, signal: exited.signal });
        await peer.stop();
        exit(1);
        return;
      }
      // The peer changed: never ready on a gateway that holds a dead startup's credential ([G-9]).
      status = { ...status, phase: 'preparing', plugins: [], failures: [], gatewayPort: null };
      logEvent('codex.peer.exited', { restarts: restarts.length });
      gateway = null;
      await started.stop(GATEWAY_STOP_GRACE_MS);
      await peer.stop();
      codexPeer = null;
      const now = deps.now();
      restarts.push(now);
      if (restarts.filter((at) => now - at < PEER_RESTART_WINDOW_MS).length > MAX_PEER_RESTARTS) {
        throw new StartupFailure('CODEX_APP_SERVER_FAILED', 'The codex app-server kept exiting; the runtime stopped restarting it.');
      }
    }
  }

  function requireTransportSecret(runtimeEnv: RuntimeEnvironment): string {
    if (runtimeEnv.transportSecret === null)
      throw new StartupFailure('RUNTIME_ENVIRONMENT_INVALID', 'The runtime environment is incomplete: a Codex revision needs OCC_RUNTIME_TRANSPORT_SECRET.');
    return runtimeEnv.transportSecret;
  }

  /** The app-server side of a Codex revision: the codex_pat taken, CODEX_HOME written; `start` runs one peer startup. */
  function codexAppServerSetup(runtimeEnv: RuntimeEnvironment, manifest: RuntimeManifest) {
    const accessToken = manifest.harnessAuth === null ? null : (takeSecrets([manifest.harnessAuth.environment])[manifest.harnessAuth.environment] ?? null);
    if (manifest.harnessAuth !== null && accessToken === null)
      throw new StartupFailure('RUNTIME_ENVIRONMENT_INVALID', 'The runtime environment is incomplete: the Agent’s codex_pat was not delivered.');
    const codexHome = join(runtimeEnv.revisionDir, 'codex-home');
    const workspace = join(runtimeEnv.stateDir, 'workspace');
    mkdirSync(workspace, { recursive: true, mode: 0o700 });
    prepareCodexHome(codexHome, {
      workspace,
      pluginsEnabled: Object.values(manifest.plugins.selections).some((selection) => selection.enabled),
      modelBaseUrl: runtimeEnv.codexModelBaseUrl,
      chatgptBaseUrl: runtimeEnv.codexChatgptBaseUrl,
    });
    const env = codexProcessEnvironment({
      toolchain: deps.toolchain,
      path: runtimeEnv.path,
      home: runtimeEnv.home,
      lang: runtimeEnv.lang,
      tmpDir: runtimeEnv.tmpDir,
      codexHome,
      network: runtimeEnv.network,
      accessToken,
      chatgptBaseUrl: runtimeEnv.codexChatgptBaseUrl,
      authBaseUrl: runtimeEnv.codexAuthBaseUrl,
    });
    return {
      start: (peerStartupId: string, transportSecret: string, listen: ListenAddress) =>
        startCodexPeer({
          toolchain: deps.toolchain,
          env,
          codexHome,
          workspace,
          transportSecret,
          peerStartupId,
          manifest,
          listen,
          marketplaces: runtimeEnv.codexMarketplaces,
          assetsDir: join(runtimeEnv.revisionDir, 'runtime-assets'),
          openclawHome: runtimeEnv.stateDir,
          installTimeoutMs: runtimeEnv.installTimeoutMs,
          signal: shutdown.signal,
          redact: accessToken === null ? [] : [accessToken],
          signInRequired: accessToken !== null,
          progress,
        }),
    };
  }

  /** The gateway side of a Codex revision: the Configuration checked against the harness and locked down (before anything starts). */
  function governCodexGateway(runtimeEnv: RuntimeEnvironment, manifest: RuntimeManifest) {
    const conflicts = findCodexGatewayConflicts(manifest.configuration.values);
    if (conflicts.length > 0) {
      logEvent('policy.invalid', { harness: 'codex', violations: conflicts.map((found) => `${found.code} ${found.path}`) });
      throw new StartupFailure('PLUGIN_POLICY_INVALID', 'The Configuration conflicts with the Codex harness the revision needs.');
    }
    return lockedDownCodexBase({
      catalog: loadCatalog(runtimeEnv.catalogPath, deps.toolchain),
      manifest,
      stateDir: runtimeEnv.stateDir,
      unselectedPlugins: runtimeEnv.unselectedPlugins,
    });
  }

  /**
   * The harness plugin in the Agent's OpenClaw state (harness-plugin.ts). Its OpenClaw process ends
   * unless `keepSession` (the caller verifies next, and ends it on every path): a gateway container
   * waits for its peer next, and its memory limit would count an idle OpenClaw process.
   */
  async function installCodexHarness(runtimeEnv: RuntimeEnvironment, commands: OpenClawCommands, { keepSession = false } = {}): Promise<void> {
    try {
      await ensureHarnessPlugin(commands, deps.toolchain.codexHarness, runtimeEnv.stateDir, { timeoutMs: runtimeEnv.installTimeoutMs, signal: shutdown.signal });
    } catch (error) {
      await commands.endSession();
      throw error;
    }
    if (!keepSession) await commands.endSession();
  }

  /**
   * Renders the gateway's configuration for one prepared peer, verifies it, and starts OpenClaw
   * with that peer's credential ([G-7]: only now, with the failed selections excluded).
   */
  async function startCodexGateway(
    commands: OpenClawCommands,
    runtimeEnv: RuntimeEnvironment,
    configPath: string,
    secrets: Record<string, string>,
    governed: ReturnType<typeof governCodexGateway>,
    peer: { bridge: CodexBridgeConfig; appServerUrl: string; credential: string; prepared: Pick<PreparedRevision, 'plugins' | 'failures'> },
  ): Promise<RunningGateway | null> {
    // A new peer restarts only OpenClaw, not the runtime: what the Agent planted in its state
    // meanwhile goes before this start's first OpenClaw process, as at the runtime's own start.
    removePlantedState(runtimeEnv.stateDir, deps.workingDir);
    const config = codexGatewayConfig({ base: governed.config, bridge: peer.bridge, appServerUrl: peer.appServerUrl });
    // Held to these bytes from here: the Agent's tools of the gateway before may still run.
    const written = writeRevisionConfig(configPath, config);
    try {
      await verifyAdmittedPolicy(commands, mergeOverlays(governed.overlay, codexGatewayOverlay(config)), { timeoutMs: 120_000, signal: shutdown.signal });
    } finally {
      await commands.endSession();
    }
    if (stopping) return null;
    const prepared = { ...peer.prepared, readBack: codexReadBack(config, governed), warnedPlugins: new Set<string>() };
    return launchGateway(commands, runtimeEnv, configPath, { ...secrets, [APP_SERVER_TOKEN_VARIABLE]: peer.credential }, prepared, written);
  }

  /**
   * A Codex revision's app-server half (role `app-server`, the container targets): one peer
   * startup under this process's startup id, published as ready with its peer status for the
   * gateway container. When the app-server exits the process exits (1): its container restarts
   * with a new startup id, so a new credential ([G-8]).
   */
  async function runCodexAppServer(runtimeEnv: RuntimeEnvironment, manifest: RuntimeManifest): Promise<void> {
    const transportSecret = requireTransportSecret(runtimeEnv);
    const peer = await codexAppServerSetup(runtimeEnv, manifest).start(startupId, transportSecret, runtimeEnv.codexAppServerListen);
    codexPeer = peer;
    if (stopping) return peer.stop();
    skillsBundle = bundleSkills(join(runtimeEnv.revisionDir, 'runtime-assets'));
    status = {
      ...status,
      phase: 'ready',
      plugins: peer.prepared.plugins,
      failures: peer.prepared.failures,
      gatewayPort: null,
      error: null,
      codexPeer: publishedPeer(peer.gate.port, peer.prepared.artifact),
    };
    progress.ready({
      role: 'app-server',
      plugins: peer.prepared.plugins,
      failures: peer.prepared.failures.map((f) => `${f.pluginId} ${f.code}`),
      ms: deps.now() - startedAt,
    });
    const exited = await peer.server.exited;
    if (stopping) return;
    status = { ...status, phase: 'preparing', plugins: [], failures: [] };
    delete status.codexPeer;
    logEvent('codex.peer.exited', { code: exited.code, signal: exited.signal });
    codexPeer = null;
    exit(1);
  }

  /**
   * A Codex revision's gateway half (role `gateway`): OpenClaw only, never the codex_pat. It stays
   * `preparing` until the peer's status is ready for this revision ([G-10]), derives the credential
   * from the transport Secret, the revision and the peer's startup id ([G-6]) and starts the
   * gateway with it ([G-7]). When the peer changes it publishes non-ready and keeps the old gateway
   * (whose credential the new app-server refuses, [G-8]) until the new peer is ready, then restarts
   * only OpenClaw ([G-9]); a gateway that exits meanwhile, or on its own, ends the process (1).
   */
  async function runCodexGateway(
    runtimeEnv: RuntimeEnvironment,
    manifest: RuntimeManifest,
    commands: OpenClawCommands,
    configPath: string,
    secrets: Record<string, string>,
  ): Promise<void> {
    const transportSecret = requireTransportSecret(runtimeEnv);
    // Defence in depth: a driver never delivers the codex_pat here; if one did, nothing of this process keeps it.
    if (manifest.harnessAuth !== null) delete env[manifest.harnessAuth.environment];
    const governed = governCodexGateway(runtimeEnv, manifest);
    await installCodexHarness(runtimeEnv, commands);
    const watch = {
      peer: runtimeEnv.codexPeer!,
      token: runtimeEnv.statusToken,
      revisionId: manifest.revisionId,
      enabledSelections: new Set(
        Object.entries(manifest.plugins.selections)
          .filter(([, selection]) => selection.enabled)
          .map(([key]) => key),
      ),
    };
    let running: RunningGateway | null = null;
    let relay: PeerRelay | null = null;
    let previous: string | null = null;
    try {
      for (;;) {
        const waiting = new AbortController();
        const stopWaiting = () => waiting.abort();
        shutdown.signal.addEventListener('abort', stopWaiting, { once: true });
        const gatewayExit = running === null ? new Promise<never>(() => {}) : running.exited.then(() => 'gateway-exited' as const);
        logEvent('codex.peer.waiting', { previous: previous !== null });
        const found = await Promise.race([awaitPeer({ ...watch, signal: waiting.signal }, previous), gatewayExit]).finally(stopWaiting);
        shutdown.signal.removeEventListener('abort', stopWaiting);
        if (stopping) return;
        if (found === 'gateway-exited' || found === null) {
          logEvent('gateway.exited', { waitingForPeer: true });
          exit(1);
          return;
        }
        const bundle = await readPeerAssets(watch.peer, watch.token, shutdown.signal);
        if (bundle === null) {
          // Its skills are part of the prepared peer ([S-4]): wait for them as for its status.
          logEvent('codex.skills.unavailable', {});
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        logEvent('codex.peer.ready', { peerStartupId: found.startupId, host: found.appServer.host, port: found.appServer.port });
        if (running !== null) {
          gateway = null;
          await running.stop(GATEWAY_STOP_GRACE_MS);
        }
        logEvent('codex.skills.received', { files: unpackSkills(bundle, { assetsDir: join(runtimeEnv.revisionDir, 'runtime-assets'), openclawHome: runtimeEnv.stateDir }) });
        await relay?.close();
        relay = found.appServer.host.startsWith('127.') ? null : await startPeerRelay(found.appServer);
        const appServerUrl = relay === null ? `ws://${found.appServer.host}:${found.appServer.port}` : `ws://127.0.0.1:${relay.port}`;
        const credential = appServerCredential(transportSecret, manifest.revisionId, found.startupId);
        running = await startCodexGateway(commands, runtimeEnv, configPath, secrets, governed, { bridge: found.bridge, appServerUrl, credential, prepared: found });
        if (running === null) return;
        const watching = new AbortController();
        const ended: 'gateway' | Awaited<ReturnType<typeof peerChanged>> = await Promise.race([
          running.exited.then(() => 'gateway' as const),
          peerChanged({ ...watch, signal: watching.signal }, found.startupId),
        ]);
        watching.abort();
        if (stopping) return;
        if (ended === 'gateway') {
          const exited = await running.exited;
          logEvent('gateway.exited', { code: exited.code, signal: exited.signal });
          exit(1);
          return;
        }
        // [G-9]: never ready on a gateway that holds a dead startup's credential. A peer that only
        // went silent may come back as the same startup (its credential still valid): accept it again.
        previous = ended === 'unreachable' ? null : found.startupId;
        status = { ...status, phase: 'preparing', plugins: [], failures: [], gatewayPort: null };
        logEvent('codex.peer.changed', { peerStartupId: found.startupId, unreachable: ended === 'unreachable' });
      }
    } catch (error) {
      // A failed startup keeps serving its status; it does not keep a gateway running.
      if (running !== null) {
        gateway = null;
        await running.stop(GATEWAY_STOP_GRACE_MS);
      }
      throw error;
    }
  }

  /** Waits until the gateway (or another process) listens on `port`, the gateway exits, or the deadline passes. */
  async function waitForListener(port: number, started: RunningGateway, address: string | undefined): Promise<PortOwnership | 'exited' | 'deadline'> {
    let exited = false;
    void started.exited.then(() => (exited = true));
    const deadline = deps.now() + GATEWAY_LISTEN_DEADLINE_MS;
    for (;;) {
      if (stopping || exited) return 'exited';
      const owner = deps.portOwner(port, started.pid, address);
      if (owner !== 'nobody') return owner;
      if (deps.now() > deadline) return 'deadline';
      await new Promise((resolve) => setTimeout(resolve, GATEWAY_LISTEN_POLL_MS));
    }
  }

  run(environment.result).catch((error: unknown) => {
    if (!stopping) fail(error);
  });
  return { status: served, stop, exitCode };
}
