import {
  DEPLOYMENT_EVENTS_KEEPALIVE_MS,
  DEPLOYMENT_EVENTS_MAX_EVENTS,
  DEPLOYMENT_EVENTS_MAX_MS,
  DEPLOYMENT_STEP_PHASES,
  RUNTIME_FAILURE_CODES,
  RUNTIME_LOG_TAIL_MAX,
  type AgentRevision,
  type DeploymentEventData,
  type DeploymentStepName,
} from '@occ/contracts';
// Sleeps, or returns early when the client goes away; leaves no timer and no listener behind.
import { pause } from '@occ/contracts/client';
import type { ControllerDeps, EventStreamBounds } from '../deps.ts';
import { notFound, OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import type { WorkItem } from '../ports/work-queue.ts';
import { reconcileKey } from './deploy.ts';
import { attemptClaims, inOrderOfHappening } from './deployment-event-order.ts';
import { projectStatus } from './deployments.ts';

/**
 * `GET …/deployments/:rev/events`: the deployment's progress as Server-Sent Events.
 *
 * Sources: the stored rows (admission, claims, the outcome and its warnings — the same rows the
 * status projects) and the runtime's own startup events (`startup.step`, `plugin.install.*`,
 * `startup.ready`, `startup.failed`) read through the ComputeDriver's logs port, the log every
 * driver that keeps one already bounds and redacts. No new driver port: the runtime's JSON log
 * events are its progress contract, and a driver without logs still streams the worker's events.
 *
 * Ids are resumable cursors, not timestamps: `id = steps × 10⁶ + claims × 10³ + others`, the
 * count of runtime steps, the highest attempt claimed and the admitted/warning/outcome events
 * sent so far, after this event. Every event raises exactly one of the three, so ids strictly
 * increase; a `Last-Event-ID` says exactly what the client has, and a new connection replays
 * the rest from the stored rows and the log (no duplicates, no gaps).
 *
 * Order: claims and steps as they happened, by each attempt's stored claim time and each step's
 * log time (deployment-event-order.ts), so a replay after any restart is the stream sent live.
 */

const DEFAULT_EVENT_STREAM_BOUNDS: EventStreamBounds = {
  maxMs: DEPLOYMENT_EVENTS_MAX_MS,
  maxEvents: DEPLOYMENT_EVENTS_MAX_EVENTS,
  keepAliveMs: DEPLOYMENT_EVENTS_KEEPALIVE_MS,
  pollMs: 500,
};

/** Lines of the runtime log read per poll (the logs port's own maximum). */
const LOG_WINDOW = RUNTIME_LOG_TAIL_MAX;
const STEP_UNIT = 1_000_000;
const CLAIM_UNIT = 1_000;

interface Cursor {
  steps: number;
  claims: number;
  /** admitted (1) + warnings sent + outcome. */
  others: number;
}

const idOf = (c: Cursor) => c.steps * STEP_UNIT + c.claims * CLAIM_UNIT + c.others;

/** A `Last-Event-ID` this API issued; anything else is 400 (a guess would duplicate or skip events). */
function parseLastEventId(value: string | undefined): Cursor {
  if (value === undefined || value === '') return { steps: 0, claims: 0, others: 0 };
  if (!/^\d{1,15}$/.test(value)) throw new OccError('INVALID_REQUEST', 'Last-Event-ID is not an id of this stream.', [{ path: '/headers/last-event-id', code: 'INVALID_VALUE' }]);
  const n = Number(value);
  return { steps: Math.floor(n / STEP_UNIT), claims: Math.floor((n % STEP_UNIT) / CLAIM_UNIT), others: n % CLAIM_UNIT };
}

let watchers = 0;
/** Open event streams in this process (each holds at most one timer and no connection between polls). */
export const activeDeploymentEventWatchers = (): number => watchers;

type StepEvent = Pick<DeploymentEventData, 'phase' | 'step' | 'pluginId' | 'result' | 'code'> & { time: number };

const INSTALL_RESULTS: Record<string, 'done' | 'rejected' | 'unreachable'> = {
  'plugin.install.done': 'done',
  'plugin.install.rejected': 'rejected',
  'plugin.install.unreachable': 'unreachable',
};
const FAILURE_CODES: ReadonlySet<string> = new Set(RUNTIME_FAILURE_CODES);

/**
 * One runtime log line as a step event, or null. Only the runtime's own JSON events are read,
 * and only closed values leave: a known step name, a plugin id that is one of the revision's
 * selection keys, a runtime failure code. Everything else of the line (messages, output) stays.
 */
export function stepOfLogLine(line: string, selections: ReadonlySet<string>): StepEvent | null {
  if (!line.startsWith('{')) return null;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (parsed.source !== 'occ-runtime' || typeof parsed.event !== 'string' || typeof parsed.time !== 'string') return null;
  const time = Date.parse(parsed.time);
  if (Number.isNaN(time)) return null;
  const event = parsed.event;
  if (event === 'startup.step') {
    const step = parsed.step;
    if (typeof step !== 'string' || !Object.hasOwn(DEPLOYMENT_STEP_PHASES, step)) return null;
    return { time, step: step as DeploymentStepName, phase: DEPLOYMENT_STEP_PHASES[step as DeploymentStepName] };
  }
  const result = INSTALL_RESULTS[event];
  if (result) {
    const pluginId = typeof parsed.selectionKey === 'string' ? parsed.selectionKey : parsed.pluginId;
    if (typeof pluginId !== 'string' || !selections.has(pluginId)) return null;
    return { time, step: 'install', phase: 'install', pluginId, result };
  }
  if (event === 'startup.ready') return { time, step: 'gateway', phase: 'gateway' };
  if (event === 'startup.failed') {
    const code = typeof parsed.code === 'string' && FAILURE_CODES.has(parsed.code) ? parsed.code : 'RUNTIME_FAILED';
    return { time, code: code as StepEvent['code'] };
  }
  return null;
}

const TERMINAL = new Set<WorkItem['state']>(['succeeded', 'failed', 'cancelled']);

interface Observation {
  item: WorkItem | null;
  activeRevisionId: string | null;
  steps: StepEvent[];
}

async function observe(deps: ControllerDeps, revision: AgentRevision, selections: ReadonlySet<string>): Promise<Observation> {
  const readRows = () =>
    deps.state.read(async (uow) => {
      const [found, agent] = await Promise.all([uow.work.get(reconcileKey(revision.id)), uow.agents.get(revision.namespaceId, revision.agentId)]);
      return { item: found, activeRevisionId: agent?.activeRevisionId ?? null };
    });
  const before = await readRows();
  // No claim yet, no runtime started: no log to read.
  if (!deps.compute?.readLogs || !before.item?.lastAttemptAt) return { ...before, steps: [] };
  let steps: StepEvent[];
  try {
    const { lines } = await deps.compute.readLogs({ namespaceId: revision.namespaceId, agentId: revision.agentId }, revision.id, { tail: LOG_WINDOW });
    steps = lines.map((line) => stepOfLogLine(line, selections)).filter((s): s is StepEvent => s !== null);
  } catch {
    steps = []; // a log that cannot be read yet (no runtime started) has no steps
  }
  // The rows again, AFTER the log: an attempt whose steps were just read is claimed in them, so a
  // poll never sends a step before its attempt's claim (a replay would put the claim first).
  const { item, activeRevisionId } = await readRows();
  // A finished deploy's steps are those up to its outcome: a later restart of the same
  // revision's runtime logs a new startup that belongs to no deploy.
  if (item && TERMINAL.has(item.state)) {
    const end = Date.parse(item.updatedAt);
    steps = steps.filter((s) => s.time <= end);
  }
  return { item, activeRevisionId, steps };
}

function frame(cursor: Cursor, data: DeploymentEventData): string {
  return `id: ${idOf(cursor)}\nevent: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The frames (already SSE-encoded) after `cursor`, until the outcome, a bound, or the client
 * leaving (`signal`). Between polls it holds one timer; after it returns it holds nothing.
 */
async function* eventFrames(deps: ControllerDeps, revision: AgentRevision, start: Cursor, signal: AbortSignal, bounds: EventStreamBounds): AsyncGenerator<string> {
  watchers += 1;
  try {
    const cursor = { ...start };
    const selections = new Set(Object.keys(revision.plugins));
    const deadline = Date.now() + bounds.maxMs;
    let sent = 0;
    let lastWrite = Date.now();
    const base = { revisionId: revision.id };
    while (!signal.aborted) {
      const seen = await observe(deps, revision, selections);
      if (signal.aborted) return;
      const out: string[] = [];
      const push = (data: DeploymentEventData) => out.push(frame(cursor, data));
      if (cursor.others === 0) {
        cursor.others = 1;
        push({ type: 'admitted', ...base, revision: revision.revision, at: revision.createdAt });
      }
      const item = seen.item;
      // Every attempt ever claimed: one a convergence wait refunded was still claimed (and sent).
      const claimed = item ? Math.min(CLAIM_UNIT - 1, Math.max(item.attempts, item.attemptClaimedAt.length, item.lastAttemptAt ? 1 : 0)) : 0;
      const claims = attemptClaims(item?.attemptClaimedAt ?? [], cursor.claims + 1, claimed);
      // Claims and steps as they happened (attempt 1's steps, its failure, then attempt 2's claim…).
      for (const next of inOrderOfHappening(claims, seen.steps.slice(cursor.steps))) {
        if (next.kind === 'claim') {
          cursor.claims = next.claim.attempt;
          push({ type: 'claimed', ...base, attempt: cursor.claims });
        } else {
          cursor.steps += 1;
          const { time, ...fields } = next.step;
          push({ type: 'step', ...base, ...fields, at: new Date(time).toISOString() });
        }
      }
      const terminal = item !== null && TERMINAL.has(item.state);
      if (terminal) {
        const status = projectStatus(revision, item, seen.activeRevisionId);
        const warnings = status.warnings.slice(0, CLAIM_UNIT - 2);
        for (const warning of warnings.slice(cursor.others - 1)) {
          cursor.others += 1;
          push({ type: 'warning', ...base, pluginId: warning.pluginId, code: warning.code });
        }
        if (cursor.others === warnings.length + 1 && status.reasonCode) {
          cursor.others += 1;
          const type = status.state === 'succeeded' || status.state === 'failed' || status.state === 'superseded' || status.state === 'stopped' ? status.state : 'failed';
          push({ type, ...base, reasonCode: status.reasonCode, attempt: Math.max(1, item.attempts) });
        }
      }
      for (const chunk of out) {
        if (sent >= bounds.maxEvents) return;
        sent += 1;
        lastWrite = Date.now();
        yield chunk;
      }
      if (terminal || sent >= bounds.maxEvents || Date.now() >= deadline) return;
      if (Date.now() - lastWrite >= bounds.keepAliveMs) {
        lastWrite = Date.now();
        yield ': keep-alive\n\n';
      }
      await pause(Math.min(bounds.pollMs, Math.max(0, deadline - Date.now())), signal);
    }
  } finally {
    watchers -= 1;
  }
}

/**
 * Opens the stream: an unknown revision (or one of another Agent) is 404 and a foreign
 * `Last-Event-ID` 400, both before the first byte of the stream.
 */
export async function openDeploymentEvents(
  deps: ControllerDeps,
  _caller: Caller,
  namespaceId: string,
  agentId: string,
  revisionId: string,
  lastEventId: string | undefined,
  signal: AbortSignal,
): Promise<AsyncIterable<string>> {
  const bounds = { ...DEFAULT_EVENT_STREAM_BOUNDS, ...deps.eventStreams };
  const revision = await deps.state.read((uow) => uow.revisions.get(namespaceId, agentId, revisionId));
  if (!revision) throw notFound('Revision');
  const cursor = parseLastEventId(lastEventId);
  return eventFrames(deps, revision, cursor, signal, bounds);
}
