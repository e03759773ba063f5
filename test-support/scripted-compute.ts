import { appendFileSync } from 'node:fs';
import type { AgentRevision, PluginWarning, StartupFailureDetail } from '@occ/contracts';
import {
  ComputeValidationError,
  type ComputeDriver,
  type GatewayMessage,
  type GatewayReply,
  type PrepareResult,
  type RestoreCause,
  type RuntimeProgress,
} from '../apps/controller/src/core/ports/compute-driver.ts';

/** What one prepare call does. */
export interface PrepareStep {
  delayMs?: number;
  /** Waits for this promise before answering (the abort signal ends the wait): a prepare the test releases when it is ready. */
  until?: Promise<unknown>;
  /** Never settles (ignores the abort signal too): the worker must give up on its own. */
  hang?: boolean;
  ready?: boolean;
  pendingReason?: string;
  /** Not ready: held in `prepared` beside the serving revision, awaiting the worker's go (`proceedRevision`). */
  awaitsGo?: true;
  warnings?: PluginWarning[];
  runtimeFailure?: { code: string; message: string; detail?: StartupFailureDetail };
  /** Throws an unexpected error. */
  crash?: boolean;
  /** What the runtime's status reported of its startup so far (a real driver reads it from the status). */
  progress?: RuntimeProgress;
}

export interface Effect {
  op: 'prepare' | 'proceed' | 'activate' | 'restore' | 'stop' | 'retire' | 'remove';
  /** '' for `remove` (the Agent as a whole). */
  revisionId: string;
  /** Why a `restore` was asked. */
  cause?: RestoreCause['kind'];
  /** A `prepare` at a deploy's last look (ComputeContext.lastLook). */
  lastLook?: boolean;
  agentId: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  outcome?: 'ok' | 'aborted' | 'failed';
}

export interface ScriptedComputeOptions {
  id?: string;
  /** Decides each prepare; default: ready at once. `call` counts this revision's prepares from 1. */
  prepare?: (revision: AgentRevision, call: number) => PrepareStep;
  /** Make activation fail for these calls (per revision, from 1). */
  failActivation?: (revision: AgentRevision, call: number) => boolean;
  /** Make `removeAgent` fail for these calls (per Agent, from 1). */
  failRemoval?: (agentId: string, call: number) => boolean;
  /** The reply of `sendMessage` to a running revision (default: `scripted reply: <text>`, in two pieces). */
  reply?: (message: GatewayMessage, revisionId: string) => GatewayReply;
  /** Static refusal, like SSH refusing plugin maps. */
  rejectRevision?: (revision: AgentRevision) => string | null;
  /** Also append every effect as a JSON line (effects from several processes). */
  logFile?: string;
}

/** A step's answer: a runtime failure wins, then readiness (default: ready unless it failed). */
function resultOf(step: PrepareStep): PrepareResult {
  if (step.runtimeFailure) return { state: 'failed', failure: step.runtimeFailure };
  if (step.awaitsGo) return { state: 'pending', reason: 'RUNTIME_STARTING', awaitsGo: true };
  // A step that names no reason stands for a driver whose answer carries none the worker accepts.
  if (step.ready === false) return { state: 'pending', reason: step.pendingReason ?? '' };
  return { state: 'ready', warnings: step.warnings ?? [] };
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const released = (until: Promise<unknown>, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    until.then(() => resolve(), reject);
  });

/**
 * A ComputeDriver for tests (test support only): scripted readiness, delays, hangs, failures
 * and warnings, with an effect log that shows who did what and when.
 */
export function createScriptedCompute(options: ScriptedComputeOptions = {}): ComputeDriver & { effects: Effect[] } {
  const effects: Effect[] = [];
  /** Revisions whose (imaginary) runtime runs: activated and not stopped or retired since. */
  const running = new Set<string>();
  const calls = new Map<string, number>();
  const count = (key: string) => {
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    return n;
  };
  const record = async (effect: Omit<Effect, 'pid' | 'startedAt'>, body: () => Promise<void>) => {
    const entry: Effect = { ...effect, pid: process.pid, startedAt: Date.now() };
    effects.push(entry);
    // Logged when it starts and again when it ends, so other processes see effects in flight.
    if (options.logFile) appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
    try {
      await body();
      entry.outcome = 'ok';
    } catch (error) {
      entry.outcome = (error as Error)?.name === 'LeaseExpiredError' || (error as Error)?.name === 'AbortError' ? 'aborted' : 'failed';
      throw error;
    } finally {
      entry.endedAt = Date.now();
      if (options.logFile) appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
    }
  };
  return {
    id: options.id ?? 'scripted',
    effects,
    validateRevision(revision) {
      const reason = options.rejectRevision?.(revision);
      if (reason) throw new ComputeValidationError('COMPUTE_REJECTED', reason);
    },
    // Takes every Namespace SSH host, so the route-wide tests can save one; what the ssh driver
    // refuses is tested against the real driver (namespace-ssh-hosts.test.ts).
    validateSshHost() {},
    async prepareRevision(revision, _manifest, { signal, lastLook }) {
      // A last look starts nothing (the port's contract): a candidate that does not run stays not ready.
      if (lastLook && !running.has(revision.id)) {
        await record({ op: 'prepare', revisionId: revision.id, agentId: revision.agentId, lastLook }, async () => {});
        return { state: 'pending', reason: 'RUNTIME_STARTING' };
      }
      const step = options.prepare?.(revision, count(`prepare:${revision.id}`)) ?? {};
      let result: PrepareResult = { state: 'ready', warnings: [] };
      await record({ op: 'prepare', revisionId: revision.id, agentId: revision.agentId, ...(lastLook ? { lastLook } : {}) }, async () => {
        if (step.hang) await new Promise(() => {});
        if (step.delayMs) await wait(step.delayMs, signal);
        if (step.until !== undefined) await released(step.until, signal);
        if (step.crash) throw new Error('scripted crash');
        result = { ...resultOf(step), ...(step.progress ? { progress: step.progress } : {}) };
      });
      // A candidate still converging runs, as a real target's would; a failed one was stopped.
      // (`result` is assigned inside the callback: TypeScript's narrowing does not see it.)
      const settled = result as PrepareResult;
      if (settled.state === 'pending') running.add(revision.id);
      if (settled.state === 'failed') running.delete(revision.id);
      return settled;
    },
    async activateRevision(revision) {
      const call = count(`activate:${revision.id}`);
      await record({ op: 'activate', revisionId: revision.id, agentId: revision.agentId }, async () => {
        if (options.failActivation?.(revision, call)) throw new Error('scripted activation failure');
      });
      running.add(revision.id);
    },
    async proceedRevision(agent, revisionId) {
      await record({ op: 'proceed', revisionId, agentId: agent.agentId }, async () => {});
    },
    /** The active revision runs again after a failed candidate (the worker's bring-back). */
    async restoreRevision(revision, _manifest, cause) {
      await record({ op: 'restore', revisionId: revision.id, agentId: revision.agentId, cause: cause.kind }, async () => {});
      running.add(revision.id);
    },
    async stopRevision(agent, revisionId) {
      await record({ op: 'stop', revisionId, agentId: agent.agentId }, async () => {});
      running.delete(revisionId);
    },
    async retireRevision(agent, revisionId) {
      await record({ op: 'retire', revisionId, agentId: agent.agentId }, async () => {});
      running.delete(revisionId);
    },
    async describeRuntime(_agent, revisionId) {
      const up = running.has(revisionId);
      return {
        running: up,
        phase: up ? 'ready' : null,
        startupId: up ? `scripted-${revisionId}` : null,
        restarts: 0,
        ready: up,
        deliveredSecrets: [],
        lastFailureCode: null,
        loaded: null,
      };
    },
    async readLogs(_agent, revisionId) {
      return { lines: [`scripted runtime of ${revisionId}`], truncated: false };
    },
    async sendMessage(_agent, revisionId, message) {
      if (!running.has(revisionId)) return { kind: 'not-serving', state: 'it is not running (scripted)' };
      return options.reply?.(message, revisionId) ?? scriptedReply([`scripted reply: `, message.text]);
    },
    /** Removes the (imaginary) runtime of every revision of the Agent this double ever prepared. */
    async removeAgent(agent) {
      const call = count(`remove:${agent.agentId}`);
      const revisions = [...new Set(effects.filter((e) => e.agentId === agent.agentId && e.op === 'prepare').map((e) => e.revisionId))];
      // The first removal that succeeds takes every revision; a later one finds none left.
      const removed = effects.some((e) => e.op === 'remove' && e.agentId === agent.agentId && e.outcome === 'ok') ? [] : revisions;
      await record({ op: 'remove', revisionId: '', agentId: agent.agentId }, async () => {
        if (options.failRemoval?.(agent.agentId, call)) throw new Error('scripted removal failure');
      });
      for (const id of revisions) running.delete(id);
      return removed.map((id) => ({ kind: 'runtime', name: id }));
    },
  };
}

/** A gateway reply of these text pieces, then done. */
export function scriptedReply(pieces: readonly string[], finishReason = 'stop'): GatewayReply {
  return {
    kind: 'replying',
    chunks: (async function* () {
      for (const text of pieces) yield { kind: 'text' as const, text };
      yield { kind: 'done' as const, finishReason };
    })(),
  };
}
