import {
  DEPLOYMENT_EVENTS_KEEPALIVE_MS,
  DEPLOYMENT_EVENTS_MAX_EVENTS,
  DEPLOYMENT_EVENTS_MAX_MS,
  DEPLOYMENT_STEP_PHASES,
  PLUGIN_INSTALL_RESULTS,
  runtimeFailureCode,
  type AgentRevision,
  type DeploymentEventData,
  type RuntimeProgressStep,
} from '@occ/contracts';
// Sleeps, or returns early when the client goes away; leaves no timer and no listener behind.
import { pause } from '@occ/contracts/client';
import type { ControllerDeps, EventStreamBounds } from '../deps.ts';
import type { RuntimeProgress } from '../ports/compute-driver.ts';
import { notFound, OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import type { WorkItem } from '../ports/work-queue.ts';
import { reconcileKey } from './deploy.ts';
import { attemptClaims, inOrderOfHappening } from './deployment-event-order.ts';
import { projectStatus } from './deployments.ts';

/**
 * `GET …/deployments/:rev/events`: the deployment's progress as Server-Sent Events.
 *
 * Sources, all stored: the rows (admission, claims, the outcome and its warnings — the same rows
 * the status projects) and the runtime's typed startup progress the worker stored from each
 * startup's trusted status (`work_item_progress`: closed step names, selection keys of the
 * revision, install results, failure codes). Nothing is read from a runtime log, so a replay after
 * any restart, of a runtime long gone, is the stream sent live.
 *
 * Ids are resumable cursors, not timestamps: `id = steps × 10⁶ + claims × 10³ + others`, the
 * count of runtime steps, the highest attempt claimed and the admitted/warning/outcome events
 * sent so far, after this event. Every event raises exactly one of the three, so ids strictly
 * increase; a `Last-Event-ID` says exactly what the client has, and a new connection replays
 * the rest from the stored rows (no duplicates, no gaps).
 *
 * Order: claims and steps as they happened, by each attempt's stored claim time and each step's
 * time (deployment-event-order.ts).
 */

const DEFAULT_EVENT_STREAM_BOUNDS: EventStreamBounds = {
  maxMs: DEPLOYMENT_EVENTS_MAX_MS,
  maxEvents: DEPLOYMENT_EVENTS_MAX_EVENTS,
  keepAliveMs: DEPLOYMENT_EVENTS_KEEPALIVE_MS,
  pollMs: 500,
};

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

const INSTALL_RESULTS: ReadonlySet<string> = new Set(PLUGIN_INSTALL_RESULTS);

/**
 * One stored progress entry as a step event, or null. Only closed values leave: a known step
 * name, a plugin id that is one of the revision's selection keys, a runtime failure code (any
 * other code is the generic RUNTIME_FAILED).
 */
export function stepOfProgress(entry: RuntimeProgressStep, selections: ReadonlySet<string>): StepEvent | null {
  const time = Date.parse(entry.at);
  if (Number.isNaN(time)) return null;
  if (entry.code !== undefined) return { time, code: runtimeFailureCode(entry.code) };
  const step = entry.step;
  if (step === undefined || !Object.hasOwn(DEPLOYMENT_STEP_PHASES, step)) return null;
  if (entry.pluginId === undefined) return { time, step, phase: DEPLOYMENT_STEP_PHASES[step] };
  if (step !== 'install' || entry.result === undefined || !INSTALL_RESULTS.has(entry.result) || !selections.has(entry.pluginId)) return null;
  return { time, step, phase: 'install', pluginId: entry.pluginId, result: entry.result };
}

/** Every stored startup's steps as events, in the order they happened (a startup's own order kept for equal times). */
function stepsOf(progress: readonly RuntimeProgress[], selections: ReadonlySet<string>): StepEvent[] {
  return progress
    .flatMap((startup) => startup.steps.map((entry) => stepOfProgress(entry, selections)))
    .filter((step): step is StepEvent => step !== null)
    .sort((a, b) => a.time - b.time);
}

const TERMINAL = new Set<WorkItem['state']>(['succeeded', 'failed', 'cancelled']);

interface Observation {
  item: WorkItem | null;
  activeRevisionId: string | null;
  steps: StepEvent[];
}

async function observe(deps: ControllerDeps, revision: AgentRevision, selections: ReadonlySet<string>): Promise<Observation> {
  const key = reconcileKey(revision.id);
  // The progress FIRST, then the rows: an attempt whose steps were just read is claimed in them,
  // so a poll never sends a step before its attempt's claim (a replay would put the claim first).
  const progress = await deps.state.read((uow) => uow.work.progress(key));
  const { item, activeRevisionId } = await deps.state.read(async (uow) => {
    // The item first, then the pointer (getDeploymentStatus, deployments.ts, says why).
    const found = await uow.work.get(key);
    const agent = await uow.agents.get(revision.namespaceId, revision.agentId);
    return { item: found, activeRevisionId: agent?.activeRevisionId ?? null };
  });
  let steps = stepsOf(progress, selections);
  // A finished deploy's steps are those up to its outcome.
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
