// End-to-end setup: a controller with the real `local` ComputeDriver (real runtime processes, the
// pinned OpenClaw CLI and gateway) and a real npm registry (verdaccio) serving the fixture plugins.
// One per test file: every real deploy costs tens of seconds.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { composeController, type ComposedController } from '../apps/controller/src/composition/compose.ts';
import { createComputeDriver } from '../apps/controller/src/composition/compute-drivers.ts';
import { agentPaths, revisionPaths } from '../apps/controller/src/drivers/compute/local/layout.ts';
import type { LocalComputeDriver } from '../apps/controller/src/drivers/compute/local/index.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { OpenClawCli, openclawEnvironment, parseJsonOutput } from '../apps/runtime/src/openclaw-cli.ts';
import { childPids, processName } from '@occ/host-io/process-group';
import { revisionConfigPath } from '../apps/runtime/src/revision-config.ts';
import { pinnedToolchain } from '../apps/runtime/src/toolchain.ts';
import { useFixtureRegistry, type FixtureRegistry } from './npm-registry.ts';
import { startTestController, type TestController, type TestControllerOptions, type TestResponse } from './test-controller.ts';
import type { DeployTarget } from './deploy-helpers.ts';
import { localComputeRoot, localGateway, runtimeLogEvents, type RuntimeLogEvent } from './local-gateway.ts';
import type { GatewayAddress } from './scripted-agent-turn.ts';

// The worker wakes at once for work enqueued in its process; the poll only finds work that became
// due (a convergence check, a retry). 250 ms, not 50: an idle worker polling every 50 ms took 24 ms
// of CPU a second in the test process (7 ms at 250), plus PostgreSQL's, for a file's whole length.
// No periodic check of the active revisions (ensureActiveMs 0): what a test saw of an Agent's runtime
// stays what the test did to it; the files that prove the check turn it on (docs/testing.md).
export const WORKER = { leaseMs: 30_000, pollMs: 250, convergencePollMs: 500, ensureActiveMs: 0 };

export interface E2E {
  /** The controller under test; after `restartOcc` its requests go to the new one (same database). */
  t: TestController;
  registry: FixtureRegistry;
  dataDir: string;
  /** The local ComputeDriver the current controller's worker drives. */
  compute(): LocalComputeDriver;
  /**
   * Closes the controller (worker, driver: its runtimes stop) and composes a new one on the same
   * database, data directory and secret key: its worker brings back what the database's pointers
   * name, each start re-authorized with the Agent's Secrets.
   */
  restartOcc(): Promise<void>;
  /** `openclaw <args> --json` on the revision's effective configuration and the Agent's state (state + that revision's config file), its output parsed. */
  openclawJson(target: DeployTarget, revisionId: string, args: readonly string[]): Promise<unknown>;
  /** The revision's effective OpenClaw configuration at `path`, read with the real CLI. */
  configGet(target: DeployTarget, revisionId: string, path: string): Promise<unknown>;
  revisionDir(target: DeployTarget, revisionId: string): string;
  /** The runtime's own JSON log events (the driver's log file of that revision). */
  events(target: DeployTarget, revisionId: string): RuntimeLogEvent[];
  /** The revision's gateway (its last start), to talk to it directly. */
  gateway(target: DeployTarget, revisionId: string): GatewayAddress;
  /**
   * The host pid of the process the revision's runtime knows as `pid` (what endpoint.json and its
   * log events name): a confined runtime lives in its own pid namespace, where it is pid 1. Null
   * when no such process lives now.
   */
  hostPid(target: DeployTarget, revisionId: string, pid: number): number | null;
  close(): Promise<void>;
}

/** `/proc/<pid>/ns/pid` and the last `NSpid` field (the pid in its own namespace), or null when gone. */
function pidNamespaceOf(pid: number): { namespace: string; innerPid: number } | null {
  try {
    const namespace = readlinkSync(`/proc/${pid}/ns/pid`);
    const nspid = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    const innerPid = Number(nspid?.trim().split(/\s+/).at(-1));
    return Number.isInteger(innerPid) ? { namespace, innerPid } : null;
  } catch {
    return null;
  }
}

/**
 * The host pid of `pid` of a runtime the driver started as `launcher` (runtime.pid): under
 * confinement `launcher` is `unshare`, whose one child is the runtime, pid 1 of the sandbox's pid
 * namespace; the process is found by that namespace and its pid inside. Unconfined, pids are the host's.
 */
function hostPidOf(launcher: number, pid: number): number | null {
  if (!Number.isInteger(launcher) || launcher <= 1) return null;
  const name = processName(launcher);
  if (name === null) return null;
  if (name !== 'unshare') return pid;
  const runtime = childPids(launcher)[0];
  const sandbox = runtime === undefined ? null : pidNamespaceOf(runtime);
  if (runtime === undefined || sandbox === null || sandbox.innerPid !== 1) return null;
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const found = pidNamespaceOf(Number(entry));
    if (found?.namespace === sandbox.namespace && found.innerPid === pid) return Number(entry);
  }
  return null;
}

async function localDriver(dataDir: string, catalogPath: string, registryUrl: string, env: Readonly<Record<string, string>>): Promise<LocalComputeDriver> {
  const driver = await createComputeDriver('local', { dataDir, env: { ...process.env, ...env, OCC_OPENCLAW_CATALOG: catalogPath, OCC_NPM_REGISTRY: registryUrl } });
  if (driver?.id !== 'local') throw new Error('no local ComputeDriver');
  return driver as LocalComputeDriver;
}

async function inject(app: FastifyInstance, adminKey: string, { method, url, key, body, headers }: Parameters<TestController['request']>[0]): Promise<TestResponse> {
  const auth = key === null ? {} : { authorization: `Bearer ${key ?? adminKey}` };
  const res = await app.inject({
    method,
    url,
    headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  let parsed: unknown;
  try {
    parsed = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, raw: res.body };
}

export interface E2EOptions {
  work?: TestControllerOptions['work'];
  /** Installation settings the local ComputeDriver reads besides the process environment (e.g. OCC_CODEX_MARKETPLACES). */
  env?: Readonly<Record<string, string>>;
  /** Replaces a harness's catalog discovery (default: the offline scripted one of test-controller.ts). */
  discovery?: TestControllerOptions['discovery'];
  /** The npm registry the runtimes are given, made in front of the fixture registry's URL (e.g. counting-registry.ts); default: the fixture registry. */
  registry?: (fixtureUrl: string) => Promise<string>;
}

export async function startE2E(options: E2EOptions = {}): Promise<E2E> {
  const registry = await useFixtureRegistry();
  const root = mkdtempSync(join(tmpdir(), 'occ-e2e-'));
  const dataDir = join(root, 'data');
  const catalogPath = join(root, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o600 });
  // The controller's curated PluginDriver reads the operator's catalog at construction.
  process.env.OCC_OPENCLAW_CATALOG = catalogPath;
  const env = options.env ?? {};
  const registryUrl = options.registry ? await options.registry(registry.url) : registry.url;
  let compute = await localDriver(dataDir, catalogPath, registryUrl, env);
  // Kept across restartOcc: a restarted OCC opens the Secrets its predecessor sealed.
  const secretKey = randomBytes(32);
  const base = await startTestController({
    compute,
    worker: WORKER,
    secretKey,
    ...(options.work ? { work: options.work } : {}),
    ...(options.discovery ? { discovery: options.discovery } : {}),
  });
  let current: ComposedController = base.controller;
  const localRoot = localComputeRoot(dataDir);
  const revisionDir = (target: DeployTarget, revisionId: string) => revisionPaths(localRoot, target.agentId, revisionId).dir;
  const t: TestController = {
    ...base,
    request: (options) => inject(current.app, base.adminKey, options),
    get app() {
      return current.app;
    },
    get controller() {
      return current;
    },
  };
  const toolchain = pinnedToolchain();
  // The CLI that reads a revision's configuration runs as this test's user, not the Agent's:
  // its own HOME (OpenClaw's fallback temp directory lives there), never the Agent's home, which
  // each confined start hands to the Agent's uid.
  const readerHome = join(root, 'config-reader-home');
  mkdirSync(readerHome, { mode: 0o700 });
  async function openclawJson(target: DeployTarget, revisionId: string, args: readonly string[]): Promise<unknown> {
    const ap = agentPaths(localRoot, target.agentId);
    const cli = new OpenClawCli(
      toolchain,
      openclawEnvironment({
        toolchain,
        path: process.env.PATH ?? '',
        home: readerHome,
        lang: 'C.UTF-8',
        stateDir: ap.state,
        configPath: revisionConfigPath(revisionDir(target, revisionId)),
        npmRegistry: registryUrl,
        network: runtimeNetworkEnvironment(process.env),
      }),
    );
    const outcome = await cli.run([...args, '--json'], { timeoutMs: 120_000 });
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw new Error(`${args.join(' ')}: ${JSON.stringify(outcome)}`);
    const parsed = parseJsonOutput(outcome.stdout);
    if (!parsed.ok) throw new Error(`${args.join(' ')}: malformed output`);
    return parsed.value;
  }
  return {
    t,
    registry,
    dataDir,
    compute: () => compute,
    async restartOcc() {
      await current.close();
      compute = await localDriver(dataDir, catalogPath, registryUrl, env);
      current = await composeController({
        database: base.database,
        secretKey,
        logger: { level: 'warn' },
        compute,
        ...(options.work ? { work: options.work } : {}),
        worker: { settings: WORKER, backoff: { baseMs: 50, capMs: 500 } },
      });
    },
    revisionDir,
    openclawJson,
    configGet(target, revisionId, path) {
      return openclawJson(target, revisionId, ['config', 'get', path]);
    },
    events(target, revisionId) {
      return runtimeLogEvents(dataDir, target.agentId, revisionId);
    },
    gateway(target, revisionId) {
      return localGateway(dataDir, target.agentId, revisionId);
    },
    hostPid(target, revisionId, pid) {
      let launcher: number;
      try {
        launcher = Number(readFileSync(revisionPaths(localRoot, target.agentId, revisionId).pidFile, 'utf8').trim());
      } catch {
        return null;
      }
      return hostPidOf(launcher, pid);
    },
    async close() {
      try {
        if (current !== base.controller) await current.close();
      } finally {
        // Closes the first controller (again, after a restart) and drops the database.
        await base.close().catch(() => {});
        await registry.close();
        delete process.env.OCC_OPENCLAW_CATALOG;
        // OCC_E2E_KEEP=1 keeps the runtimes' files and logs for a post-mortem.
        if (process.env.OCC_E2E_KEEP) console.log(`e2e files kept in ${root}`);
        else rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
