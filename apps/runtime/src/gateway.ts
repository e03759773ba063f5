import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { OpenClawCli } from './openclaw-cli.ts';
import { processTempDir } from './process-temp-dir.ts';

/** What OpenClaw prints when its startup migrations or plugin repair failed and it serves anyway. */
export const DEGRADED_STATE_MARKER = 'Startup migration warnings; continuing with degraded state.';
// 2026.9.6 says "data/settings upgrade is unfinished", 2026.9.5 "state migration is pending"; a
// migration OpenClaw finishes later in the same start ("Deferred state migration completed") is not.
const UNFINISHED_UPGRADE = /Plugin "([^"]{1,128})" (?:data\/settings upgrade is unfinished|state migration is pending)/;
const COMPLETED_MIGRATION = /Deferred state migration completed for plugin "([^"]{1,128})"/;
const SELF_INSTALL = /missing configured plugin "([^"]{1,128})"/;

/** What the gateway said about its state since it started. */
export interface GatewayDegradation {
  degraded: boolean;
  /** The plugins whose data/settings upgrade it says is unfinished (a failed install leaves one pending in the Agent's state). */
  unfinished: string[];
  /** The plugins it tried to install by itself ("missing configured plugin"). */
  selfInstalls: string[];
}

export interface GatewayExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GatewayInput {
  port: number;
  token: string;
  secrets: Record<string, string>;
  /** A non-loopback address the configuration's gateway.customBindHost names; null: loopback. */
  bindHost?: string | null;
}

export interface RunningGateway {
  pid: number;
  exited: Promise<GatewayExit>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<GatewayExit>;
  /** Whether it said it runs on degraded state (DEGRADED_STATE_MARKER) since it started, and which plugins its warnings named. */
  degradation(): GatewayDegradation;
}

/**
 * `openclaw gateway run --bind loopback --port <port> --auth token --allow-unconfigured`
 * (`--bind custom` when `bindHost` names another address: set in the configuration first).
 * The token travels in OPENCLAW_GATEWAY_TOKEN (never argv, which other users can list), the
 * Configuration's Secret variables in the environment; output goes on to the runtime's own stdio,
 * read on the way for the one line that says its state is degraded.
 * `--allow-unconfigured` lifts only the `gateway.mode=local` guard: the Configuration is the
 * operator's, and the runtime does not add gateway settings to it.
 */
export function startGateway(cli: OpenClawCli, input: GatewayInput): RunningGateway {
  const bind = input.bindHost ? 'custom' : 'loopback';
  const { command, args } = cli.argv(['gateway', 'run', '--bind', bind, '--port', String(input.port), '--auth', 'token', '--allow-unconfigured']);
  const temp = processTempDir(cli.env);
  const child: ChildProcess = spawn(command, args, {
    // OPENCLAW_CONFIG_READONLY: the gateway writes nothing into the revision's configuration (its API,
    // chat commands or channels would otherwise save changes there); an edit ends it (config-guard.ts).
    env: { ...input.secrets, ...cli.env, ...temp.env, OPENCLAW_GATEWAY_TOKEN: input.token, OPENCLAW_CONFIG_READONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { onLine, degradation } = degradationReader();
  if (child.stdout) forwardLines(child.stdout, process.stdout, onLine);
  if (child.stderr) forwardLines(child.stderr, process.stderr, onLine);
  const exited = new Promise<GatewayExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  }).finally(temp.remove);
  return {
    pid: child.pid ?? -1,
    exited,
    async stop(graceMs) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
    degradation,
  };
}

/** Reads the gateway's output lines for what it says about its state (RunningGateway.degradation). */
export function degradationReader(): { onLine: (line: string) => void; degradation: () => GatewayDegradation } {
  let degraded = false;
  const unfinished = new Set<string>();
  const selfInstalls = new Set<string>();
  const onLine = (line: string) => {
    if (line.includes(DEGRADED_STATE_MARKER)) degraded = true;
    for (const [pattern, named] of [
      [UNFINISHED_UPGRADE, unfinished],
      [SELF_INSTALL, selfInstalls],
    ] as const) {
      const pluginId = pattern.exec(line)?.[1];
      if (pluginId !== undefined && named.size < 256) named.add(pluginId);
    }
    const completed = COMPLETED_MIGRATION.exec(line)?.[1];
    if (completed !== undefined) unfinished.delete(completed);
  };
  return { onLine, degradation: () => ({ degraded, unfinished: [...unfinished].sort(), selfInstalls: [...selfInstalls].sort() }) };
}

/** Copies `from` to `to` unchanged and hands each complete line to `onLine` (a line cut across chunks is joined first). */
export function forwardLines(from: Readable, to: Writable, onLine: (line: string) => void): void {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    to.write(chunk);
    const lines = (partial + chunk).split('\n');
    partial = (lines.pop() ?? '').slice(-64 * 1024);
    for (const line of lines) onLine(line);
  });
  from.on('end', () => {
    if (partial !== '') onLine(partial);
  });
}
