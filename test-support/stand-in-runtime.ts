import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentRevision, PluginMap, PluginWarning, RuntimeManifest } from '@occ/contracts';
import { newId } from '../apps/controller/src/core/ids.ts';
import type { ComputeDriver, PrepareResult } from '../apps/controller/src/core/ports/compute-driver.ts';
import { createLocalComputeDriver, type LaunchCommand, type LocalComputeDriver, type LocalComputeOptions } from '../apps/controller/src/drivers/compute/local/index.ts';
import { revisionPaths } from '../apps/controller/src/drivers/compute/local/layout.ts';
import { deriveToken, loadDriverKey } from '../apps/controller/src/drivers/compute/runtime-contract/driver-key.ts';
import { runtimeManifest } from '../apps/controller/src/worker/runtime-manifest.ts';

/**
 * What the stand-in runtime (stand-in-runtime.mjs) does on each start. It is a test double of
 * OUR runtime for the local ComputeDriver's mechanics; end-to-end tests use the real one.
 */
export interface StandInScenario {
  /** How long it reports `preparing` (default 150 ms). */
  preparingMs?: number;
  outcome?: 'ready' | 'failed';
  /** The outcome of the first, second, … start of this revision; later starts play `outcome`. */
  outcomes?: Array<'ready' | 'failed'>;
  errorCode?: string;
  /** Published with a failed status's code (the runtime's StartupFailureDetail). */
  errorDetail?: unknown;
  failures?: PluginWarning[];
  /** Reported as installed (default: every selection without a failure). */
  plugins?: string[];
  /** Lies in its status: another revision or startup id. */
  statusRevisionId?: string;
  statusStartupId?: string;
  /** The exact body served instead of the status. */
  rawStatus?: string;
  /** endpoint.json names another pid. */
  endpointPid?: 'wrong';
  /** `never`: the gateway never serves /readyz. */
  gateway?: 'ready' | 'never';
  /**
   * Started to hold (OCC_RUNTIME_HOLD_BEFORE_GATEWAY=1, the real runtime's contract): a failed
   * outcome fails before it holds (installs, verification) unless `failsAfterGo`; otherwise it
   * publishes `prepared` after `preparingMs` and goes on only after `POST /proceed`.
   */
  failsAfterGo?: boolean;
  /** Exits (code 4) this long after the go (a candidate that crashes once the old runtime stopped). */
  exitAfterGoMs?: number;
  /** Exits (code 4) this long after starting; with exitOnce only on the first start. */
  exitAfterMs?: number;
  exitOnce?: boolean;
  ignoreSigterm?: boolean;
  /** Logs the real runtime's JSON progress events (startup.step, plugin.install.*, startup.ready/failed). */
  startupSteps?: boolean;
  /** Prints this many lines at start, each padded by logLineLength characters. */
  logLines?: number;
  logLineLength?: number;
  /** Prints its status token and every delivered Secret value once (a leaky plugin), for log redaction tests. */
  leakSecrets?: boolean;
}

const SCRIPT = fileURLToPath(new URL('./stand-in-runtime.mjs', import.meta.url));

export const standInLaunch = (): LaunchCommand => ({ command: process.execPath, args: [SCRIPT], readOnly: [SCRIPT, process.execPath] });

/** The stand-in gateway's readiness, the way @occ/runtime/gateway-probe reads the real one. */
export async function probeStandInGateway(port: number, token: string, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { authorization: `Bearer ${token}` }, signal });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The PluginDriver a stand-in revision of each harness names (as an Installation with both drivers admits it). */
const PLUGIN_DRIVER_OF: Record<AgentRevision['harness'], string> = { openclaw: 'openclaw-curated', codex: 'codex-hosted' };

/**
 * A revision of a fresh Agent whose runtime plays `scenario`, and its manifest: harness openclaw
 * unless told; `codexPat: true` binds the Agent's codex_pat to some Secret (what a start delivers
 * comes from the test's authority).
 */
export function standInRevision(
  scenario: StandInScenario,
  options: {
    agentId?: string;
    revision?: number;
    plugins?: PluginMap;
    harness?: AgentRevision['harness'];
    pluginDriverId?: string | null;
    codexPat?: boolean;
    namespaceId?: string;
    secretBindings?: string[];
  } = {},
): { revision: AgentRevision; manifest: RuntimeManifest } {
  const harness = options.harness ?? 'openclaw';
  const revision: AgentRevision = {
    id: newId('agent_revision'),
    namespaceId: options.namespaceId ?? newId('namespace'),
    agentId: options.agentId ?? newId('agent'),
    revision: options.revision ?? 1,
    harness,
    harnessAuth: options.codexPat ? { method: 'codex_pat', secretId: newId('secret') } : null,
    pluginDriverId: options.pluginDriverId === undefined ? PLUGIN_DRIVER_OF[harness] : options.pluginDriverId,
    computeDriverId: 'local',
    plugins: options.plugins ?? (harness === 'openclaw' ? { diffs: { enabled: true }, nostr: { enabled: true } } : {}),
    pluginApprovers: null,
    configuration: {
      id: newId('configuration'),
      generation: 1,
      values: { standIn: scenario as Record<string, unknown> },
      // Each named variable bound to some Secret: what a start delivers comes from the test's authority.
      secretBindings: Object.fromEntries((options.secretBindings ?? []).map((name) => [name, { secretId: newId('secret') }])),
    },
    servicePrincipalId: newId('principal'),
    actorId: newId('principal'),
    createdAt: new Date().toISOString(),
  };
  return { revision, manifest: runtimeManifest(revision) };
}

/** The gateway port of the revision's newest ready start, from the stand-in's log line. */
function standInGatewayPort(root: string, revision: { agentId: string; id: string }): number | null {
  const log = readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8');
  const port = [...log.matchAll(/stand-in ready gatewayPort=(\d+)/g)].at(-1)?.[1];
  return port === undefined ? null : Number(port);
}

/**
 * What the revision's newest stand-in gateway received of its Secret variables (and of the
 * Agent's codex_pat, under the manifest's `harnessAuth.environment`): name → sha256 of the value
 * (never the value), read over its token like a client would; null when it does not answer.
 */
export async function standInReceivedSecrets(root: string, revision: { agentId: string; id: string }): Promise<Record<string, string> | null> {
  const port = standInGatewayPort(root, revision);
  if (port === null) return null;
  const token = deriveToken(loadDriverKey(root), 'gateway', revision.id);
  try {
    const res = await fetch(`http://127.0.0.1:${port}/received-secrets`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2_000) });
    return res.status === 200 ? ((await res.json()) as Record<string, string>) : null;
  } catch {
    return null;
  }
}

/** How the stand-in gateway reports a received value. */
export const sha256Of = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex')}`;

/**
 * One look as the worker takes it before a deploy's last: prepare, then the go to a revision that
 * answered `awaitsGo` (worker/give-go.ts). Answers what the prepare answered.
 */
export async function workerLook(driver: ComputeDriver, revision: AgentRevision, manifest: RuntimeManifest, signal = AbortSignal.timeout(10_000)): Promise<PrepareResult> {
  const result = await driver.prepareRevision(revision, manifest, { signal });
  if (result.state === 'pending' && result.awaitsGo) await driver.proceedRevision!(revision, revision.id, { signal });
  return result;
}

/** Looks (as the worker would, again and again: workerLook) until prepare answers something other than "not ready yet". */
export async function prepareSettled(driver: ComputeDriver, revision: AgentRevision, manifest: RuntimeManifest, timeoutMs = 15_000): Promise<PrepareResult> {
  let last: PrepareResult | null = null;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    last = await workerLook(driver, revision, manifest);
    if (last.state !== 'pending') return last;
  }
  throw new Error(`prepare did not settle: ${JSON.stringify(last)}`);
}

/** Every regular file under `dir`, recursively (for leak checks over what a driver wrote). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** A private temporary root for one driver. */
export function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), 'occ-local-'));
}

/** Running, not a zombie waiting for a reaper (orphans are reparented to an init that may not reap). */
export function processAlive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The stand-in runs unconfined: it speaks no sandbox network bridge, and its tests signal and
 * inspect its processes by host pid. Confinement is proven with the real runtime
 * (apps/controller/test/e2e/agent-breakout.test.ts; the refusal and the opt-out: test/drivers/local-compute-confinement.test.ts).
 */
export const STAND_IN_CONFINEMENT = 'none' as const;

/**
 * The local ComputeDriver over the stand-in, as the API-level files use it: unconfined (above),
 * quick status reads (200 ms per prepare look) and stops (500 ms grace); `options` override.
 */
export function standInLocalCompute(rootDir: string, options: Partial<LocalComputeOptions> = {}): LocalComputeDriver {
  return createLocalComputeDriver({
    confinement: STAND_IN_CONFINEMENT,
    rootDir,
    launch: standInLaunch,
    probeGateway: probeStandInGateway,
    readyWaitMs: 200,
    stopGraceMs: 500,
    ...options,
  });
}
