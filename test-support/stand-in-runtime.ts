import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentRevision, PluginMap, PluginWarning, RuntimeManifest } from '@occ/contracts';
import { newId } from '../apps/controller/src/core/ids.ts';
import type { ComputeDriver, PrepareResult } from '../apps/controller/src/core/ports/compute-driver.ts';
import type { LaunchCommand } from '../apps/controller/src/drivers/compute/local/index.ts';
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
  /** Exits (code 4) this long after starting; with exitOnce only on the first start. */
  exitAfterMs?: number;
  exitOnce?: boolean;
  ignoreSigterm?: boolean;
  /** Prints this many lines at start, each padded by logLineLength characters. */
  logLines?: number;
  logLineLength?: number;
}

const SCRIPT = fileURLToPath(new URL('./stand-in-runtime.mjs', import.meta.url));

export const standInLaunch = (): LaunchCommand => ({ command: process.execPath, args: [SCRIPT] });

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

/** A revision (harness openclaw) of a fresh Agent whose runtime plays `scenario`, and its manifest. */
export function standInRevision(
  scenario: StandInScenario,
  options: { agentId?: string; revision?: number; plugins?: PluginMap; harness?: AgentRevision['harness'] } = {},
): { revision: AgentRevision; manifest: RuntimeManifest } {
  const revision: AgentRevision = {
    id: newId('agent_revision'),
    namespaceId: newId('namespace'),
    agentId: options.agentId ?? newId('agent'),
    revision: options.revision ?? 1,
    harness: options.harness ?? 'openclaw',
    harnessAuth: null,
    pluginDriverId: 'openclaw-curated',
    computeDriverId: 'local',
    plugins: options.plugins ?? { diffs: { enabled: true }, nostr: { enabled: true } },
    pluginApprovers: null,
    configuration: { id: newId('configuration'), generation: 1, values: { standIn: scenario as Record<string, unknown> }, secretBindings: {} },
    servicePrincipalId: newId('principal'),
    actorId: newId('principal'),
    createdAt: new Date().toISOString(),
  };
  return { revision, manifest: runtimeManifest(revision) };
}

/** Calls prepare (as the worker would, again and again) until it answers something other than "not ready yet". */
export async function prepareSettled(driver: ComputeDriver, revision: AgentRevision, manifest: RuntimeManifest, timeoutMs = 15_000): Promise<PrepareResult> {
  let last: PrepareResult | null = null;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    last = await driver.prepareRevision(revision, manifest, { signal: AbortSignal.timeout(10_000) });
    if (last.state !== 'pending') return last;
  }
  throw new Error(`prepare did not settle: ${JSON.stringify(last)}`);
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
