import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { sandboxCommand, type SandboxPlan } from './sandbox-command.ts';

/**
 * How the local driver confines runtimes (OCC_LOCAL_CONFINEMENT; docs/security.md):
 * - `sandbox` (default): each runtime in its own mount, pid, IPC and UTS namespaces, seeing only
 *   the system directories and toolchain read-only and its Agent's own directories, as its own
 *   unprivileged uid (OCC as root) or with no capabilities in a user namespace (OCC unprivileged).
 *   Where that cannot be set up, runtimes do not start (RUNTIME_CONFINEMENT_UNAVAILABLE).
 * - `none`: the development opt-out. Runtimes run as OCC's own user in OCC's filesystem: an Agent's
 *   tools can read OCC's keys and database. Logged loudly at every start.
 */
export type ConfinementMode = 'sandbox' | 'none';
export const CONFINEMENT_VARIABLE = 'OCC_LOCAL_CONFINEMENT';
export const DEFAULT_CONFINEMENT: ConfinementMode = 'sandbox';

/** The setting `occ up` / `occ worker` refuse to start with, naming the variable. */
class ConfinementSettingError extends Error {
  override readonly name = 'ConfinementSettingError';
}

export function localConfinementSetting(env: NodeJS.ProcessEnv): ConfinementMode {
  const value = env[CONFINEMENT_VARIABLE];
  if (value === undefined || value === '') return DEFAULT_CONFINEMENT;
  if (value === 'sandbox' || value === 'none') return value;
  throw new ConfinementSettingError(`${CONFINEMENT_VARIABLE} must be sandbox (the default) or none (development only: Agents can then read OCC's keys).`);
}

/** Uids given to confined runtimes when OCC runs as root: far above login users and the usual subordinate-id ranges. */
export const SANDBOX_UID_BASE = 3_000_000;
const SANDBOX_UID_SPAN = 1_000_000;

/** The Agent's own uid (and gid): stable across restarts, so its files stay its own. */
export function sandboxUid(agentId: string): number {
  return SANDBOX_UID_BASE + (createHash('sha256').update(agentId).digest().readUInt32BE(0) % SANDBOX_UID_SPAN);
}

export const runsAsRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Absolute paths among the network variables' values that exist here (CA bundles): a confined runtime must read them. */
export function networkFiles(network: Readonly<Record<string, string>>): string[] {
  return Object.values(network).filter((value) => isAbsolute(value) && existsSync(value));
}

/**
 * Whether this host can confine a runtime as `sandboxCommand` does: one throwaway sandbox runs
 * `true`. Returns null when it can, else why not (the first line of what failed).
 */
export function probeSandbox(): string | null {
  if (process.platform !== 'linux') return `runtimes are confined with Linux namespaces; this host runs ${process.platform}`;
  const scratch = mkdtempSync(join(tmpdir(), 'occ-sandbox-probe-'));
  try {
    const root = join(scratch, 'root');
    const own = join(scratch, 'agent');
    mkdirSync(root);
    mkdirSync(own);
    const plan: SandboxPlan = {
      root,
      readOnly: [],
      copied: [],
      readWrite: [own],
      readOnlyOverlays: [],
      hidden: [],
      cwd: own,
      user: runsAsRoot() ? { uid: SANDBOX_UID_BASE, gid: SANDBOX_UID_BASE } : null,
      isolateNetwork: true,
      bridgeDir: own,
    };
    const { command, args } = sandboxCommand(plan, { command: '/bin/sh', args: ['-c', 'test -w "$0" && test ! -e /proc/1/environ -o -r /proc/1/environ', own] });
    const result = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
    if (result.error) return `${command} could not run (${(result.error as NodeJS.ErrnoException).code ?? result.error.message})`;
    if (result.status === 0) return null;
    const reason = (result.stderr ?? '').split('\n').find((line) => line.trim() !== '') ?? `exit ${String(result.status ?? result.signal)}`;
    return reason.slice(0, 300);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const SHARED_LOOPBACK_VARIABLE = 'OCC_LOCAL_SHARED_LOOPBACK_PORTS';

/**
 * Host loopback ports every confined runtime reaches at the same number (a model server or a
 * registry on this machine), comma-separated; empty by default. OCC's own API port and its
 * database must never be listed: an Agent could then reach them.
 */
export function localSharedLoopbackPorts(env: NodeJS.ProcessEnv): number[] {
  const value = env[SHARED_LOOPBACK_VARIABLE] ?? '';
  if (value.trim() === '') return [];
  const ports = value.split(',').map((entry) => entry.trim());
  if (!ports.every((port) => /^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    throw new ConfinementSettingError(`${SHARED_LOOPBACK_VARIABLE} must list port numbers (1-65535) separated by commas.`);
  }
  return [...new Set(ports.map(Number))];
}

/** The port of a loopback http(s) URL (a registry on this machine), else nothing. */
export function loopbackPortOf(url: string | undefined): number[] {
  if (!url) return [];
  try {
    const parsed = new URL(url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) return [];
    return [Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))];
  } catch {
    return [];
  }
}
