import { TypeCompiler } from '@sinclair/typebox/compiler';
import { readBoundedText } from '@occ/host-io/bounded-body';
import {
  admitPluginWarnings,
  isAdmissibleWarning,
  StartupStatusSchema,
  type LoadedRuntime,
  type PluginWarning,
  type StartupFailureDetail,
  type StartupStatus,
} from '@occ/contracts';
import type { RuntimeProgress } from '../../../core/ports/compute-driver.ts';

const isStatus = TypeCompiler.Compile(StartupStatusSchema);
const MAX_STATUS_BYTES = 64 * 1024;
const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** What one look at a runtime found; `progress` wherever a trusted status was read. */
export type Observation =
  /** `prepared`: installed and verified, waiting for the driver's go (a runtime started to hold, OCC_RUNTIME_HOLD_BEFORE_GATEWAY). */
  | { kind: 'starting'; prepared?: true; progress?: RuntimeProgress }
  | { kind: 'untrusted' }
  /** `detail`: only one that names a selection of this revision. */
  | { kind: 'failed'; code: string; detail?: StartupFailureDetail; progress?: RuntimeProgress }
  | { kind: 'ready'; gatewayPort: number; warnings: PluginWarning[]; startupId: string; loaded: LoadedRuntime | null; progress?: RuntimeProgress };

/**
 * GET /startup-status on loopback with the revision's token: `unreachable` when nothing answers
 * yet, `malformed` for any answer that is not a 200 with a bounded JSON body.
 */
export function fetchStartupStatus(port: number, token: string, signal: AbortSignal, timeoutMs: number, longPoll?: StatusLongPoll): Promise<StatusRead> {
  const query = longPoll ? longPollQuery(longPoll) : '';
  const timeout = longPoll ? timeoutMs + longPoll.waitMs : timeoutMs;
  return requestStartupStatus(`http://127.0.0.1:${port}/startup-status${query}`, { authorization: `Bearer ${token}` }, signal, timeout);
}

/**
 * POST /proceed with the revision's token: the go to a runtime holding in `prepared`. True when it
 * was taken (204); false when nothing answered or it was refused (the next look asks again).
 */
export async function requestProceed(port: number, token: string, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/proceed`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    await res.body?.cancel();
    return res.status === 204;
  } catch {
    signal.throwIfAborted();
    return false;
  }
}

/**
 * A long-poll (the runtime's status server, apps/runtime/src/status-server.ts): answered when the
 * status is no longer version `seen`, or after `waitMs` (the runtime holds it at most 25 s).
 */
export interface StatusLongPoll {
  seen: string;
  waitMs: number;
}

/** `version`: the runtime's digest of the status it served (absent from runtimes that predate long-polls). */
export type StatusRead = { body: unknown; version?: string } | 'unreachable' | 'malformed';

/** The header naming the version of the status served (the runtime's status-server.ts). */
export const STATUS_VERSION_HEADER = 'x-occ-status-version';
const STATUS_VERSION = /^[0-9a-f]{32}$/;

/** `read` with the version its answer named, when that is one (a status and a well-formed header). */
export function versioned(read: StatusRead, version: string | null | undefined): StatusRead {
  return typeof read === 'object' && typeof version === 'string' && STATUS_VERSION.test(version) ? { ...read, version } : read;
}

/** The query of a long-poll on the runtime's `/startup-status`. */
export const longPollQuery = (longPoll: StatusLongPoll) => `?seen=${encodeURIComponent(longPoll.seen)}&waitMs=${longPoll.waitMs}`;

/** What a status must match: the revision, the startup id its runtime announced, the revision's admitted selection keys and the enabled ones. */
export interface StatusExpectation {
  revisionId: string;
  startupId: string;
  selections: ReadonlySet<string>;
  enabled: ReadonlySet<string>;
}

/**
 * One status read at `url` (loopback, a container's port, or the API server's pod proxy, which
 * takes its own credential in `authorization`: the runtime's token then goes as
 * X-OCC-Status-Token). `init` adds transport options (a TLS dispatcher), never headers.
 */
async function requestStartupStatus(url: string, headers: Record<string, string>, signal: AbortSignal, timeoutMs: number, init: RequestInit = {}): Promise<StatusRead> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers, redirect: 'error', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  } catch {
    signal.throwIfAborted();
    return 'unreachable';
  }
  try {
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return statusReadOf(res.status, null);
    }
    return versioned(statusReadOf(res.status, await readBoundedText(res.body, MAX_STATUS_BYTES)), res.headers.get(STATUS_VERSION_HEADER));
  } catch {
    signal.throwIfAborted();
    return 'malformed';
  }
}

/**
 * One status answer (its HTTP status and bounded text, null when there is none or it was too
 * large) as a read: a proxy that cannot reach the runtime yet answers 502/503, so nothing serves
 * there yet; anything but a 200 with a JSON body is malformed.
 */
export function statusReadOf(status: number, text: string | null): StatusRead {
  if (status === 502 || status === 503) return 'unreachable';
  if (status !== 200 || text === null) return 'malformed';
  try {
    return { body: JSON.parse(text) };
  } catch {
    return 'malformed';
  }
}

/** What one read found: nothing answering yet is a runtime starting, an answer that is no status is untrusted, a status is judged. */
export function observeStatus(read: StatusRead, expected: StatusExpectation): Observation {
  if (read === 'unreachable') return { kind: 'starting' };
  if (read === 'malformed') return { kind: 'untrusted' };
  return judgeStatus(read.body, expected);
}

/**
 * Judges a status against what this driver knows: the revision it started, the startup id its
 * own process announced, and the revision's admitted selection keys. Anything off is untrusted
 * and never establishes readiness; warnings are kept only in the closed code set. A ready
 * status accounts for every enabled selection, as installed or as failed: one it is silent
 * about was never verified (S-2). Only enabled selections are ever installed; a disabled one
 * may still carry a failure (the runtime installs every npm selection, enabled or not).
 */
export function judgeStatus(raw: unknown, expected: StatusExpectation): Observation {
  if (!isStatus.Check(raw)) return { kind: 'untrusted' };
  const status: StartupStatus = raw;
  if (status.revisionId !== expected.revisionId || status.startupId !== expected.startupId) return { kind: 'untrusted' };
  const progress = progressOf(status, expected.selections);
  if (status.phase === 'preparing') return { kind: 'starting', ...progress };
  if (status.phase === 'prepared') return { kind: 'starting', prepared: true, ...progress };
  if (status.phase === 'failed') return { ...failedObservation(status.error, expected.selections), ...progress };
  if (status.gatewayPort === null) return { kind: 'untrusted' };
  if (!status.plugins.every((p) => expected.enabled.has(p))) return { kind: 'untrusted' };
  if (!status.failures.every((f) => isAdmissibleWarning(f, expected.selections) && !status.plugins.includes(f.pluginId))) return { kind: 'untrusted' };
  const accounted = new Set([...status.plugins, ...status.failures.map((f) => f.pluginId)]);
  if (![...expected.enabled].every((key) => accounted.has(key))) return { kind: 'untrusted' };
  return {
    kind: 'ready',
    gatewayPort: status.gatewayPort,
    warnings: admitPluginWarnings(status.failures, expected.selections),
    startupId: status.startupId,
    loaded: status.loaded ?? null,
    ...progress,
  };
}

/** The status's progress, when it has any; an entry naming a plugin that is no selection of the revision is left out. */
function progressOf(status: StartupStatus, selections: ReadonlySet<string>): { progress?: RuntimeProgress } {
  if (status.progress === undefined) return {};
  return { progress: { startupId: status.startupId, steps: status.progress.filter((step) => step.pluginId === undefined || selections.has(step.pluginId)) } };
}

/** A failed status's code (one of the fixed shape, else the generic one) and its detail when it names an admitted selection. */
function failedObservation(error: StartupStatus['error'], selections: ReadonlySet<string>): Observation {
  if (!error || !FAILURE_CODE.test(error.code)) return { kind: 'failed', code: 'RUNTIME_STARTUP_FAILED' };
  const detail = error.detail && selections.has(error.detail.plugin) ? { detail: error.detail } : {};
  return { kind: 'failed', code: error.code, ...detail };
}
