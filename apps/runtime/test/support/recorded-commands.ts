// Recording and replaying the OpenClaw CLI (the runtime's OpenClawCommands seam). A recording is
// what the pinned CLI really printed and did for a sequence of commands — outcome and the
// revision config file as the command left it — with this machine's paths replaced by
// placeholders. Replaying it gives the runtime the same answers without a process, so the order
// of its steps and its reading of real outputs are unit-tested (test/unit/*.test.ts).
// Recordings are made by record-cli-fixtures.ts and committed under test/fixtures/cli/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PluginMap } from '@occ/contracts';
import type { OpenClawCatalogPlugin } from '@occ/policy';
import type { GatewayDegradation, GatewayExit, RunningGateway } from '../../src/gateway.ts';
import type { CliOutcome } from '../../src/openclaw-cli.ts';
import type { BatchedOutcome, ReadCommand } from '../../src/openclaw-batch.ts';
import type { CommandOptions, GatewayInput, GatewayReadMethod, OpenClawCommands } from '../../src/openclaw-commands.ts';

export type CommandName = 'installHelp' | 'install' | 'installHarnessPlugin' | 'refreshRegistry' | 'uninstall' | 'inspect' | 'configGet';

export interface RecordedCall {
  command: CommandName;
  args: unknown[];
  outcome: CliOutcome;
  /** The revision config file after the command, when the command changed it. */
  configAfter?: string;
}

export interface CliRecording {
  scenario: string;
  recordedWith: { openclaw: string; node: string };
  /** The revision's plugin selections and Configuration values when this was recorded. */
  selections: PluginMap;
  configuration: Record<string, unknown>;
  /** Catalog entries added to the curated catalog (the fixture plugins and their integrity). */
  catalogPlugins: OpenClawCatalogPlugin[];
  /** Paths the recorded answers point at (install dirs, plugin sources), to recreate on replay. */
  paths: { dirs: string[]; files: string[] };
  calls: RecordedCall[];
}

/** The machine-specific directories of one recording or replay, and their placeholders. */
export interface CliWorld {
  stateDir: string;
  revisionDir: string;
  home: string;
  configPath: string;
  openclawPackageDir: string;
}

const PLACEHOLDERS: [keyof CliWorld, string][] = [
  ['configPath', '<config>'],
  ['stateDir', '<state>'],
  ['revisionDir', '<revision>'],
  ['home', '<home>'],
  ['openclawPackageDir', '<openclaw>'],
];

function toPlaceholders(text: string, world: CliWorld, extra: [string, string][] = []): string {
  let out = text;
  for (const [key, token] of PLACEHOLDERS) out = out.split(world[key]).join(token);
  for (const [value, token] of extra) out = out.split(value).join(token);
  return out;
}

function fromPlaceholders(text: string, world: CliWorld): string {
  let out = text;
  for (const [key, token] of PLACEHOLDERS) out = out.split(token).join(world[key]);
  return out;
}

/** `install @s/p 1.0.0 {"noEnable":false,…}`: how calls are matched and listed. */
export function describeCall(command: CommandName, args: readonly unknown[]): string {
  return [command, ...args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg)))].join(' ');
}

/** A batched read as the recordings name it: its own command, as if it had run alone (the CLI answers the same). */
function readCall(read: ReadCommand): { command: CommandName; args: unknown[] } {
  switch (read.command) {
    case 'refreshRegistry':
      return { command: 'refreshRegistry', args: [] };
    case 'inspect':
      return { command: 'inspect', args: [read.pluginId] };
    case 'configGet':
      return { command: 'configGet', args: [read.section] };
  }
}

const failed = (outcome: CliOutcome) => outcome.kind !== 'exited' || outcome.code !== 0;

function mapOutcome(outcome: CliOutcome, map: (text: string) => string): CliOutcome {
  const copy = { ...outcome } as Record<string, unknown>;
  for (const field of ['stdout', 'stderr']) if (typeof copy[field] === 'string') copy[field] = map(copy[field] as string);
  return copy as CliOutcome;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Wraps real commands and keeps every call with its outcome and config effect (placeholders in),
 * in the order the calls finished. `settled()` waits for calls still running (parallel inspections
 * go on after a sibling's failure ends the start).
 */
export function recordingCommands(
  real: OpenClawCommands,
  world: CliWorld,
  extraPlaceholders: [string, string][] = [],
): OpenClawCommands & { calls: RecordedCall[]; settled(): Promise<void> } {
  const calls: RecordedCall[] = [];
  const running = new Set<Promise<unknown>>();
  const normalize = (text: string) => toPlaceholders(text, world, extraPlaceholders);
  const record = (command: CommandName, args: unknown[], run: () => Promise<CliOutcome>): Promise<CliOutcome> => {
    const recorded = (async () => {
      const before = readOrNull(world.configPath);
      const outcome = await run();
      const after = readOrNull(world.configPath);
      calls.push({ command, args, outcome: mapOutcome(outcome, normalize), ...(after !== null && after !== before ? { configAfter: normalize(after) } : {}) });
      return outcome;
    })();
    running.add(recorded);
    void recorded.finally(() => running.delete(recorded)).catch(() => {});
    return recorded;
  };
  return {
    calls,
    settled: async () => void (await Promise.allSettled([...running])),
    installHelp: (options) => record('installHelp', [], () => real.installHelp(options)),
    install: (name, version, flags, options) => record('install', [name, version, flags], () => real.install(name, version, flags, options)),
    installHarnessPlugin: (spec, cache, options) => record('installHarnessPlugin', [spec], () => real.installHarnessPlugin(spec, cache, options)),
    uninstall: (ids, options) => record('uninstall', [[...ids]], () => real.uninstall(ids, options)),
    // Each read of a batch is kept as its own call, so recordings replay one command at a time.
    readInOneProcess: async (reads, options) => {
      const before = readOrNull(world.configPath);
      const outcomes = await real.readInOneProcess(reads, options);
      const after = readOrNull(world.configPath);
      outcomes.forEach(({ outcome }, index) => {
        if (outcome.kind === 'skipped') return;
        const changed = index === 0 && after !== null && after !== before ? { configAfter: normalize(after) } : {};
        calls.push({ ...readCall(reads[index]!), outcome: mapOutcome(outcome, normalize), ...changed });
      });
      return outcomes;
    },
    gatewayReads: (methods, port, token, options) => real.gatewayReads(methods, port, token, options),
    startGateway: (input) => real.startGateway(input),
    endSession: () => real.endSession(),
    stopAll: () => real.stopAll(),
  };
}

/** A gateway that runs until the test makes it exit (or the runtime stops it). */
export interface ScriptedGateway extends RunningGateway {
  input: GatewayInput;
  /** The gateway dies on its own. */
  crash(exit: GatewayExit): void;
  stoppedWithGraceMs: number | null;
  /** What degradation() answers (the test sets it: what the gateway printed about its state). */
  said: GatewayDegradation;
}

export interface ReplayedCommands extends OpenClawCommands {
  /** Every call in order, as describeCall names it. */
  calls: string[];
  /** Calls no recording answered (each also threw). */
  unanswered: string[];
  gateway: ScriptedGateway | null;
  stopAllCalls: number;
  /** What the scripted gateway answers to each read (`tools.catalog`, `plugins.list`, `cron.list`). */
  gatewayAnswers: Record<GatewayReadMethod, unknown>;
  /** How many calls of each read fail first, as a gateway that listens but does not answer yet (or answers late). */
  gatewayNotYet: Partial<Record<GatewayReadMethod, number>>;
  /** How many read-back processes (readInOneProcess) ran. */
  readProcesses: number;
  /** The methods each `gatewayReads` process was asked, in order (one entry per process). */
  gatewayReadProcesses: GatewayReadMethod[][];
  /** What started gateways say about their state. */
  gatewaySays: GatewayDegradation;
}

export function loadRecording(name: string): CliRecording {
  return JSON.parse(readFileSync(new URL(`../fixtures/cli/${name}.json`, import.meta.url), 'utf8')) as CliRecording;
}

/** Recreates the directories and files the recordings' answers point at under `world`. */
export function materializePaths(recordings: readonly CliRecording[], world: CliWorld): void {
  for (const recording of recordings) {
    for (const dir of recording.paths.dirs) mkdirSync(fromPlaceholders(dir, world), { recursive: true });
    for (const file of recording.paths.files) {
      const path = fromPlaceholders(file, world);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '');
    }
  }
}

/**
 * Answers each call with the first unused recorded call of the same command and arguments,
 * searching the recordings in the order given (so a recording put first overrides a later one's
 * answer, e.g. an unreachable registry's install in an otherwise ordinary start), and applies its
 * recorded config effect. A call nobody recorded throws.
 */
export function replayCommands(recordings: readonly CliRecording[], world: CliWorld): ReplayedCommands {
  const pool = recordings.flatMap((recording) => recording.calls.map((call) => ({ call, used: false })));
  const replay: ReplayedCommands = {
    calls: [],
    unanswered: [],
    gateway: null,
    stopAllCalls: 0,
    installHelp: (options) => answer('installHelp', [], options),
    install: (name, version, flags, options) => answer('install', [name, version, flags], options),
    installHarnessPlugin: (spec, _cache, options) => answer('installHarnessPlugin', [spec], options),
    uninstall: (ids, options) => answer('uninstall', [[...ids]], options),
    // One process runs the reads in order and stops at the first failure (openclaw-batch.mjs).
    readInOneProcess: async (reads, options) => {
      const outcomes: BatchedOutcome[] = [];
      for (const read of reads) {
        const previous = outcomes.at(-1);
        if (previous !== undefined && failed(previous.outcome)) {
          outcomes.push({ outcome: { kind: 'skipped' }, ms: 0 });
          continue;
        }
        const { command, args } = readCall(read);
        outcomes.push({ outcome: await answer(command, args, options), ms: 0 });
      }
      replay.readProcesses++;
      return outcomes;
    },
    // The serving gateway's answers: what the test put in `gatewayAnswers` (default: core tools, one provider, no jobs).
    // One process answers every method asked (gateway-reads.mjs); a method still "not yet" answers unanswered.
    gatewayReads: async (methods) => {
      replay.gatewayReadProcesses.push([...methods]);
      const answers = methods.map((method) => {
        replay.calls.push(`gatewayRead ${method}`);
        const notYet = replay.gatewayNotYet[method] ?? 0;
        if (notYet > 0) {
          replay.gatewayNotYet[method] = notYet - 1;
          return [method, { answered: false }];
        }
        return [method, { answered: true, value: replay.gatewayAnswers[method] }];
      });
      return { kind: 'exited', code: 0, stdout: JSON.stringify(Object.fromEntries(answers)), stderr: '' };
    },
    gatewayNotYet: {},
    gatewayReadProcesses: [],
    readProcesses: 0,
    gatewaySays: { degraded: false, unfinished: [], selfInstalls: [] },
    gatewayAnswers: {
      'tools.catalog': { groups: [{ id: 'fs', source: 'core', tools: [{ id: 'read' }] }] },
      'plugins.list': {
        plugins: [
          { id: 'openai', enabled: true, runtime: { state: 'active' } },
          { id: 'browser', enabled: false, runtime: { state: 'unloaded' } },
        ],
      },
      'cron.list': { jobs: [{ id: 'j1', declarationKey: 'heartbeat:main', name: 'heartbeat-main', enabled: false }] },
    },
    startGateway: (input) => {
      replay.gateway = scriptedGateway(input);
      replay.gateway.said = replay.gatewaySays;
      return replay.gateway;
    },
    endSession: async () => undefined,
    stopAll: async () => void replay.stopAllCalls++,
  };
  async function answer(command: CommandName, args: unknown[], options: CommandOptions): Promise<CliOutcome> {
    const name = describeCall(command, args);
    replay.calls.push(name);
    if (options.signal?.aborted) return { kind: 'aborted' };
    const found = pool.find((entry) => !entry.used && describeCall(entry.call.command, entry.call.args) === name);
    if (!found) {
      replay.unanswered.push(name);
      throw new Error(`no recorded answer for: ${name}`);
    }
    found.used = true;
    if (found.call.configAfter !== undefined) writeFileSync(world.configPath, fromPlaceholders(found.call.configAfter, world), { mode: 0o600 });
    return mapOutcome(found.call.outcome, (text) => fromPlaceholders(text, world));
  }
  return replay;
}

function scriptedGateway(input: GatewayInput): ScriptedGateway {
  let settle!: (exit: GatewayExit) => void;
  const exited = new Promise<GatewayExit>((resolve) => (settle = resolve));
  const gateway: ScriptedGateway = {
    pid: 424242,
    input,
    exited,
    stoppedWithGraceMs: null,
    said: { degraded: false, unfinished: [], selfInstalls: [] },
    degradation: () => gateway.said,
    crash: (exit) => settle(exit),
    stop: async (graceMs) => {
      gateway.stoppedWithGraceMs = graceMs;
      settle({ code: null, signal: 'SIGTERM' });
      return exited;
    },
  };
  return gateway;
}
