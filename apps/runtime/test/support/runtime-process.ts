// Runs the real runtime process (runtimeLaunchCommand) the way a compute driver does: private
// temporary directories, a 0600 manifest, tokens in the environment; and reads back what it did
// with the real OpenClaw CLI against the same state and configuration.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginMap, RuntimeManifest, StartupFailureDetail, StartupStatus } from '@occ/contracts';
import type { OpenClawCatalog } from '@occ/policy';
import { expect } from 'vitest';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { runtimeLaunchCommand } from '../../src/launch.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { OpenClawCli, openclawEnvironment, parseJsonOutput } from '../../src/openclaw-cli.ts';
import { signalProcessGroup } from '@occ/host-io/process-group';
import { revisionConfigPath } from '../../src/revision-config.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';

export interface RuntimeStart {
  selections: PluginMap;
  /** The operator's native openclaw.json (the Configuration's values). */
  configuration?: Record<string, unknown>;
  catalog?: OpenClawCatalog;
  registryUrl?: string;
  /** The runtime's network variables, as a driver passes them (default: the allowlisted part of this process's environment). */
  network?: Record<string, string>;
  /** An Agent's state kept from an earlier revision (default: a fresh one). */
  stateDir?: string;
  /** Replaces the manifest file's content (invalid manifests). */
  rawManifest?: (manifest: RuntimeManifest) => string;
  /** More runtime variables (e.g. OCC_RUNTIME_INSTALL_TIMEOUT_MS). */
  env?: Record<string, string>;
  /** npm's user config in the runtime's HOME (e.g. `fetch-retries=0`). */
  npmrc?: string;
  /** Secret variables the manifest names and the environment delivers, as a driver does. */
  secrets?: Record<string, string>;
  /** The revision (default: a new one): two runtimes of one revision share it, as a Codex revision's two roles do. */
  manifest?: RuntimeManifest;
  /** The revision's status token (default: a new one); shared by a Codex revision's two roles. */
  statusToken?: string;
}

export interface LogEvent {
  event: string;
  [field: string]: unknown;
}

export interface RunningRuntime {
  revisionId: string;
  revisionDir: string;
  stateDir: string;
  statusToken: string;
  gatewayToken: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process printed so far (stdout and stderr, as a driver's log file holds it). */
  output(): string;
  /** The runtime's own JSON log lines. */
  events(): LogEvent[];
  endpoint(): { pid: number; statusPort: number; startupId: string };
  fetchStatus(token?: string | null): Promise<Response>;
  /** Polls until the phase is no longer `preparing`. */
  settled(timeoutMs: number): Promise<StartupStatus>;
  /** The real CLI with the runtime's state and revision config (read-only use in tests). */
  cli: OpenClawCli;
  configGet(path: string): Promise<unknown>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the process if needed and removes the temporary directories. */
  dispose(): Promise<void>;
}

/** The status a failed start must publish: this revision and startup, nothing ready, a fixed code (and the failing selection, when one did). */
export function failedStatus(runtime: RunningRuntime, code: string, message: unknown = expect.any(String), detail?: StartupFailureDetail): StartupStatus {
  const error = { code, message: message as string, ...(detail ? { detail } : {}) };
  // Its progress ends with the failure's code (every step before it typed too).
  const progress = expect.arrayContaining([{ at: expect.any(String), code }]) as StartupStatus['progress'];
  return { revisionId: runtime.revisionId, startupId: runtime.endpoint().startupId, phase: 'failed', plugins: [], failures: [], gatewayPort: null, error, progress };
}

/** A manifest made a Codex revision: the harness, its codex_pat delivered as OCC_RUNTIME_CODEX_PAT, the hosted plugin driver. */
export function asCodexManifest(manifest: RuntimeManifest): string {
  return JSON.stringify({
    ...manifest,
    harness: 'codex',
    harnessAuth: { method: 'codex_pat', environment: 'OCC_RUNTIME_CODEX_PAT' },
    plugins: { ...manifest.plugins, driverId: 'codex-hosted' },
  });
}

export function testManifest(selections: PluginMap, values: Record<string, unknown>): RuntimeManifest {
  return {
    manifestVersion: 1,
    namespaceId: `ns_${randomUUID()}`,
    agentId: `agt_${randomUUID()}`,
    revisionId: `rev_${randomUUID()}`,
    revision: 1,
    harness: 'openclaw',
    harnessAuth: null,
    plugins: { driverId: 'openclaw-curated', selections, approvers: null },
    configuration: { id: `cfg_${randomUUID()}`, generation: 1, values },
    secretEnvironment: [],
  };
}

export async function startRuntime(input: RuntimeStart): Promise<RunningRuntime> {
  const root = mkdtempSync(join(tmpdir(), 'occ-runtime-test-'));
  const revisionDir = join(root, 'revision');
  const stateDir = input.stateDir ?? join(root, 'state');
  const home = join(root, 'home');
  for (const dir of [revisionDir, home, ...(input.stateDir ? [] : [stateDir])]) mkdirSync(dir, { mode: 0o700 });
  if (input.npmrc !== undefined) writeFileSync(join(home, '.npmrc'), input.npmrc, { mode: 0o600 });
  const manifest = input.manifest ?? { ...testManifest(input.selections, input.configuration ?? {}), secretEnvironment: Object.keys(input.secrets ?? {}) };
  const manifestPath = join(revisionDir, 'manifest.json');
  writeFileSync(manifestPath, input.rawManifest ? input.rawManifest(manifest) : JSON.stringify(manifest), { mode: 0o600 });
  let catalogPath: string | undefined;
  if (input.catalog) {
    catalogPath = join(root, 'catalog.json');
    writeFileSync(catalogPath, JSON.stringify(input.catalog), { mode: 0o600 });
  }
  const statusToken = input.statusToken ?? randomBytes(24).toString('base64url');
  const gatewayToken = randomBytes(24).toString('base64url');
  const network = input.network ?? runtimeNetworkEnvironment(process.env);
  const launch = runtimeLaunchCommand();
  const child = spawn(launch.command, launch.args, {
    cwd: revisionDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: {
      ...network,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      OCC_RUNTIME_MANIFEST: manifestPath,
      OCC_RUNTIME_REVISION_DIR: revisionDir,
      OCC_RUNTIME_STATE_DIR: stateDir,
      OCC_RUNTIME_STATUS_TOKEN: statusToken,
      OCC_RUNTIME_GATEWAY_TOKEN: gatewayToken,
      ...(catalogPath ? { OCC_RUNTIME_CATALOG: catalogPath } : {}),
      ...(input.registryUrl ? { OCC_RUNTIME_NPM_REGISTRY: input.registryUrl } : {}),
      ...input.secrets,
      ...input.env,
    },
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const output = () => chunks.join('');
  const events = () =>
    output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
      .map((line) => JSON.parse(line) as LogEvent);
  const endpoint = () => JSON.parse(readFileSync(join(revisionDir, 'endpoint.json'), 'utf8')) as { pid: number; statusPort: number; startupId: string };
  const toolchain = pinnedToolchain();
  const cli = new OpenClawCli(
    toolchain,
    openclawEnvironment({
      toolchain,
      path: process.env.PATH ?? '',
      home,
      lang: 'C.UTF-8',
      stateDir,
      configPath: revisionConfigPath(revisionDir),
      npmRegistry: input.registryUrl ?? null,
      network,
    }),
  );
  await waitFor(
    'endpoint.json',
    async () => {
      try {
        return endpoint();
      } catch {
        return null;
      }
    },
    (found) => found !== null,
    60_000,
    200,
  );
  const fetchStatus = (token: string | null = statusToken) =>
    fetch(`http://127.0.0.1:${endpoint().statusPort}/startup-status`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return {
    revisionId: manifest.revisionId,
    revisionDir,
    stateDir,
    statusToken,
    gatewayToken,
    child,
    exited,
    output,
    events,
    endpoint,
    fetchStatus,
    settled: (timeoutMs) =>
      waitFor(
        'a settled startup status',
        async () => (await (await fetchStatus()).json()) as StartupStatus,
        (status) => status.phase !== 'preparing',
        timeoutMs,
        1_000,
      ),
    cli,
    configGet: async (path) => {
      const outcome = await cli.run(['config', 'get', path, '--json'], { timeoutMs: 120_000 });
      if (outcome.kind !== 'exited' || outcome.code !== 0) throw new Error(`config get ${path}: ${JSON.stringify(outcome)}`);
      const parsed = parseJsonOutput(outcome.stdout);
      if (!parsed.ok) throw new Error(`config get ${path}: malformed output`);
      return parsed.value;
    },
    stop,
    dispose: async () => {
      const timer = setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), 30_000);
      await stop();
      clearTimeout(timer);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
