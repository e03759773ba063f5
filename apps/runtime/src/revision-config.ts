import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject } from '@occ/contracts';
import { pointer } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { writePrivateFileAtomic } from '@occ/host-io/private-files';

/** The revision-private OpenClaw configuration (OPENCLAW_CONFIG_PATH of every OpenClaw process). */
export function revisionConfigPath(revisionDir: string): string {
  return join(revisionDir, 'openclaw.json');
}

/** Writes the revision's configuration; returns the bytes written (what a gateway started on it may be held to, config-guard.ts). */
export function writeRevisionConfig(path: string, config: Record<string, unknown>): Buffer {
  const text = `${JSON.stringify(config, null, 2)}\n`;
  try {
    writePrivateFileAtomic(path, text);
    return Buffer.from(text);
  } catch {
    throw new StartupFailure('RUNTIME_CONFIG_WRITE_FAILED', 'The revision’s OpenClaw configuration could not be written.');
  }
}

/** The file as OpenClaw left it, or null when it is missing or not a JSON object. */
export function readRevisionConfig(path: string): Record<string, unknown> | null {
  try {
    return parseObject(readFileSync(path));
  } catch {
    return null;
  }
}

/** JSON pointers where `after` differs from `before` (lists compared whole): what the CLI changed. */
export function changedPointers(before: unknown, after: unknown, path: string[] = []): string[] {
  if (isJsonObject(before) && isJsonObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedPointers(before[key], after[key], [...path, key]));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [pointer(...path)];
}

/** The loopback address the status server and gateway use unless the driver names another. */
export const LOOPBACK_ADDRESS = '127.0.0.1';

/**
 * Sets `gateway.customBindHost` (the one gateway setting the runtime writes, only when the driver
 * asks for a non-loopback address, e.g. a pod's IP): `--bind custom` reads the host from there.
 */
export function setGatewayBindHost(path: string, host: string, from: Buffer | null = null): Buffer {
  const config = (from === null ? readRevisionConfig(path) : parseObject(from)) ?? {};
  const gateway = isJsonObject(config.gateway) ? config.gateway : {};
  return writeRevisionConfig(path, { ...config, gateway: { ...gateway, customBindHost: host } });
}

/** A JSON object from `bytes`, or null when they are not one. */
function parseObject(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** OpenClaw's own log: inside the Agent's state, bounded (OpenClaw rotates it to .1 … .5). */
export const OPENCLAW_LOG_MAX_BYTES = 16 * 1024 * 1024;

/**
 * What the runtime adds to every revision's configuration besides the policy (README.md,
 * "Runtime settings"): OpenClaw's log file in the Agent's own state directory, never the shared
 * `/tmp/openclaw` of every process on the host, bounded in size; no update check at start
 * (the pinned runtime is the revision's). Background work nobody asked for is off unless the
 * Configuration turns it on: the recurring heartbeat turn, autonomous self-learning (a weekly
 * review that rewrites the agent's skills, which would outlive a restart), memory dreaming (a
 * daily consolidation turn), the periodic model-catalog download, the "utility model" (an
 * activity recap after every run, asked of a model the Configuration never named, on the Agent's
 * key), internal hooks (hook code found in the Agent's state would load), and the gateway's
 * operator surfaces that bypass tool policy (a host terminal, external coding CLIs). The
 * Configuration's other `logging` and `update` keys stay.
 */
export function withRuntimeSettings(config: Record<string, unknown>, stateDir: string): Record<string, unknown> {
  const logging = isJsonObject(config.logging) ? config.logging : {};
  const update = isJsonObject(config.update) ? config.update : {};
  const settled = {
    ...config,
    logging: { ...logging, file: join(stateDir, 'logs', 'openclaw.log'), maxFileBytes: OPENCLAW_LOG_MAX_BYTES },
    update: { ...update, checkOnStart: false },
  };
  return QUIET_DEFAULTS.reduce<Record<string, unknown>>((config, [path, value]) => withDefault(config, path, value), settled);
}

/** Background work and surfaces nobody asked for, each off unless the Configuration sets its key (withRuntimeSettings). */
const QUIET_DEFAULTS: ReadonlyArray<readonly [path: readonly string[], value: unknown]> = [
  [['agents', 'defaults', 'heartbeat', 'every'], '0m'],
  [['skills', 'workshop', 'autonomous', 'mode'], 'off'],
  // Memory "dreaming": memory-core schedules a daily consolidation turn once the agent has used memory, even while the
  // plugin is denied (its memory tools are OpenClaw's core ones); explicitly off, it also removes a job it left earlier.
  [['plugins', 'entries', 'memory-core', 'config', 'dreaming', 'enabled'], false],
  // The model catalog download from catalog.openclaw.ai (at start, then every 6 h): the pinned package's own catalog serves.
  [['models', 'catalogRefresh', 'enabled'], false],
  // OpenClaw reads '' as "disabled" (without it: `auto`, a small model of the configured providers).
  [['agents', 'defaults', 'utilityModel'], ''],
  [['hooks', 'internal', 'enabled'], false],
  // A shell on the host (with the gateway's environment) and coding CLIs for whoever holds the gateway's token.
  [['gateway', 'terminal', 'enabled'], false],
  [['gateway', 'cliAgents', 'enabled'], false],
  // The scheduler: an automation's "command" payload is a shell the gateway runs by itself, outside the tool policy,
  // and whoever holds the gateway's token (its environment, which the exec tool inherits) may schedule one.
  [['cron', 'enabled'], false],
  // The file tools (read, write, edit, ls, the media tools' local files) in the Agent's workspace: elsewhere, `read` of
  // /proc/self/environ hands the model the gateway's environment (its token, the Agent's Secrets) even where the tool
  // policy denies exec.
  [['tools', 'fs', 'workspaceOnly'], true],
];

/** `config` with `value` at `path` unless the Configuration set something there (or a non-object on the way). */
function withDefault(config: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path as [string, ...string[]];
  const current = config[key];
  if (rest.length === 0) return current === undefined ? { ...config, [key]: value } : config;
  if (current !== undefined && !isJsonObject(current)) return config;
  return { ...config, [key]: withDefault(current ?? {}, rest, value) };
}
