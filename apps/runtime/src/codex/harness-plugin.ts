import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject } from '@occ/contracts';
import { StartupFailure } from '../failure.ts';
import { dropUnusedPlatformBinaries } from './harness-binaries.ts';
import { logEvent } from '../log.ts';
import { parseJsonOutput } from '../openclaw-cli.ts';
import type { CommandOptions, OpenClawCommands } from '../openclaw-commands.ts';
import type { PinnedToolchain } from '../toolchain.ts';

/** OpenClaw's id of its official Codex harness plugin. */
const HARNESS_PLUGIN_ID = 'codex';
/** Where OpenClaw puts every npm install in the Agent's state (planted-state.ts). */
const NPM_ROOT = 'npm';

/** The install record `plugins inspect codex --json` reports (the parts that prove what is installed). */
interface InstallRecord {
  source: string;
  resolvedSpec: string;
  integrity: string;
  installPath: string | null;
}

function installRecord(stdout: string): InstallRecord | null {
  const parsed = parseJsonOutput(stdout);
  const install = parsed.ok && isJsonObject(parsed.value) && isJsonObject(parsed.value.install) ? parsed.value.install : null;
  if (install === null) return null;
  const { source, resolvedSpec, integrity, installPath } = install;
  if (typeof source !== 'string' || typeof resolvedSpec !== 'string' || typeof integrity !== 'string') return null;
  return { source, resolvedSpec, integrity, installPath: typeof installPath === 'string' ? installPath : null };
}

async function installed(commands: OpenClawCommands, options: CommandOptions): Promise<InstallRecord | null> {
  const [read] = await commands.readInOneProcess([{ command: 'inspect', pluginId: HARNESS_PLUGIN_ID }], options);
  const outcome = read?.outcome ?? { kind: 'skipped' };
  return outcome.kind === 'exited' && outcome.code === 0 ? installRecord(outcome.stdout) : null;
}

const dropBinaries = (record: InstallRecord | null, stateDir: string) => (record?.installPath ? dropUnusedPlatformBinaries(record.installPath, stateDir) : []);

const matchesPin = (record: InstallRecord | null, pin: PinnedToolchain['codexHarness']) =>
  record !== null && record.source === 'npm' && record.resolvedSpec === pin.spec && record.integrity === pin.integrity;

/**
 * Puts the pinned `@openclaw/codex` into the Agent's own OpenClaw state as an npm install
 * (docs/plans/codex-harness.md): OpenClaw grants its keyed stores — which a Codex turn needs —
 * only to a plugin with an npm install record; a linked one is refused at the turn. The install
 * comes offline from the npm cache filled at set-up time (no network, no registry), and is kept
 * across revisions while its record names the pinned spec and integrity. Anything else — no
 * record, another version, another integrity — is installed again and must then match the pin.
 * npm refuses a read-only cache (ENOTCACHED), and the shared one is read-only to a confined
 * runtime anyway: the install reads a copy in the Agent's state, removed afterwards, so no Agent
 * can change what another installs.
 */
export async function ensureHarnessPlugin(
  commands: OpenClawCommands,
  pin: PinnedToolchain['codexHarness'],
  stateDir: string,
  options: CommandOptions,
): Promise<'kept' | 'installed'> {
  // A state without OpenClaw's npm root has no npm install to keep: no inspection (a cold OpenClaw load) for a new Agent.
  const present = existsSync(join(stateDir, NPM_ROOT)) ? await installed(commands, options) : null;
  if (matchesPin(present, pin)) {
    // An install an earlier runtime made may still hold the binaries.
    logEvent('codex.harness.kept', { spec: pin.spec, droppedPlatformPackages: dropBinaries(present, stateDir) });
    return 'kept';
  }
  const cacheCopy = join(stateDir, '.occ-harness-npm-cache');
  rmSync(cacheCopy, { recursive: true, force: true });
  let outcome: Awaited<ReturnType<typeof commands.installHarnessPlugin>> | { kind: 'spawn-error' };
  try {
    cpSync(pin.npmCache, cacheCopy, { recursive: true });
    outcome = await commands.installHarnessPlugin(`npm:${pin.spec}`, { npmCache: cacheCopy, registry: pin.registry }, options);
  } catch {
    outcome = { kind: 'spawn-error' as const };
  } finally {
    rmSync(cacheCopy, { recursive: true, force: true });
  }
  if (outcome.kind !== 'exited' || outcome.code !== 0) {
    logEvent('codex.harness.install_failed', { spec: pin.spec, outcome: outcome.kind, ...(outcome.kind === 'exited' ? { exitCode: outcome.code } : {}) });
    throw new StartupFailure('PLUGIN_INSTALL_ERROR', `The Codex harness plugin ${pin.spec} could not be installed from the runtime's npm cache.`);
  }
  const record = await installed(commands, options);
  if (!matchesPin(record, pin)) {
    logEvent('codex.harness.unverified', { spec: pin.spec, installed: record === null ? null : `${record.source} ${record.resolvedSpec}` });
    throw new StartupFailure('PLUGIN_VERIFICATION_FAILED', `The installed Codex harness plugin is not the pinned ${pin.spec}.`);
  }
  logEvent('codex.harness.installed', { spec: pin.spec, droppedPlatformPackages: dropBinaries(record, stateDir) });
  return 'installed';
}
