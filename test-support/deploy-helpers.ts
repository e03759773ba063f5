import type { AgentRevision } from '@occ/contracts';
import { composeWorker } from '../apps/controller/src/composition/worker.ts';
import type { ComputeDriver } from '../apps/controller/src/core/ports/compute-driver.ts';
import type { Database } from '../apps/controller/src/state/database.ts';
import type { Backoff } from '../apps/controller/src/state/work-queue/index.ts';
import type { WorkerSettings } from '../apps/controller/src/worker/worker-deps.ts';
import { createScriptedCompute, type Effect, type PrepareStep } from './scripted-compute.ts';
import type { TestController, TestResponse } from './test-controller.ts';
import { adminCreate, uniqueName } from './world.ts';

/** The plugin key the deploy tests select: one the curated catalog offers, so an Agent saves with it. */
export const PLUGIN = 'openclaw:@openclaw/nostr';

const TERMINAL = new Set(['succeeded', 'failed', 'superseded', 'stopped']);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` until `done` holds, failing with the last value seen after `timeoutMs`. `everyMs`
 * is the pause between reads, or a function of the number of reads so far (a growing pause).
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  everyMs: number | ((reads: number) => number) = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T = await read();
  for (let reads = 1; !done(last); reads += 1) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(typeof everyMs === 'number' ? everyMs : everyMs(reads));
    last = await read();
  }
  return last;
}

/**
 * 25 ms, doubling up to 250 ms: a scripted deploy ends in milliseconds and is seen at once, while
 * a real one takes minutes, and a status read every 25 ms for minutes (an HTTP request and database
 * queries in the test's own process) takes CPU from the runtime being waited for.
 */
const growingPause = (reads: number): number => Math.min(250, 25 * 2 ** (reads - 1));

/** One Agent (openclaw, one selected plugin) in `ns` with its own Configuration. */
export interface DeployTarget {
  ns: string;
  cfg: string;
  agentId: string;
  servicePrincipalId: string;
  url: string;
}

export async function newDeployTarget(
  t: TestController,
  options: { ns?: string; plugins?: Record<string, unknown>; values?: Record<string, unknown> } = {},
): Promise<DeployTarget> {
  const ns = options.ns ?? t.defaultNamespaceId;
  const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: options.values ?? { a: 1 } });
  const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
    name: uniqueName('a'),
    configurationId: cfg.id,
    harness: 'openclaw',
    plugins: options.plugins ?? { [PLUGIN]: { enabled: true } },
  });
  return { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
}

/**
 * Stores a plugin map straight in the database, past the save-time checks: an Agent saved
 * before a rule existed (or under another catalog), which deploy and startup must still handle.
 */
export async function storePluginsUnchecked(t: TestController, target: DeployTarget, plugins: Record<string, unknown>): Promise<void> {
  await t.database.query('UPDATE agents SET plugins = $1::jsonb WHERE id = $2', [JSON.stringify(plugins), target.agentId]);
}

export function deploy(t: TestController, target: DeployTarget, key?: string): Promise<TestResponse> {
  return t.request({ method: 'POST', url: `${target.url}/deploy`, ...(key ? { key } : {}) });
}

/**
 * Deploys as the administrator and returns the admitted revision, failing on anything but 202.
 * Always a new revision (`restart`): the tests that use it deploy one snapshot again and again to
 * drive the worker, which a plain deploy of an unchanged, active Agent would not (it is a no-op).
 */
export async function admit(t: TestController, target: DeployTarget): Promise<AgentRevision> {
  const res = await t.request({ method: 'POST', url: `${target.url}/deploy`, body: { restart: true } });
  if (res.status !== 202) throw new Error(`deploy → ${res.status} ${res.raw}`);
  return res.body.data;
}

export async function deploymentStatus(t: TestController, target: DeployTarget, revisionId: string): Promise<any> {
  const res = await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}` });
  if (res.status !== 200) throw new Error(`GET deployment → ${res.status} ${res.raw}`);
  return res.body.data;
}

export function waitTerminal(t: TestController, target: DeployTarget, revisionId: string, timeoutMs = 20_000): Promise<any> {
  return waitFor(
    `deployment ${revisionId} to end`,
    () => deploymentStatus(t, target, revisionId),
    (s) => TERMINAL.has(s.state),
    timeoutMs,
    growingPause,
  );
}

/** A fresh Agent whose first revision deployed and is active: where a redeploy scenario starts. */
export async function withActiveRevision(t: TestController): Promise<{ target: DeployTarget; one: AgentRevision }> {
  const target = await newDeployTarget(t);
  const one = await admit(t, target);
  const status = await waitTerminal(t, target, one.id);
  if (status?.state !== 'succeeded') throw new Error(`revision 1 did not deploy: ${JSON.stringify(status)}`);
  return { target, one };
}

export async function activeRevisionId(t: TestController, target: DeployTarget): Promise<string | null> {
  const res = await t.request({ method: 'GET', url: target.url });
  if (res.status !== 200) throw new Error(`GET agent → ${res.status} ${res.raw}`);
  return res.body.data.activeRevisionId;
}

/** The raw work_items row of a revision's reconcile item. */
export async function workRow(t: TestController, revisionId: string): Promise<Record<string, any> | undefined> {
  const { rows } = await t.database.query(`SELECT * FROM work_items WHERE idempotency_key = $1`, [`agent_revision:${revisionId}:reconcile`]);
  return rows[0];
}

/** Effects of one revision, optionally of one kind. */
export const effectsOf = (effects: readonly Effect[], revisionId: string, op?: Effect['op']) => effects.filter((e) => e.revisionId === revisionId && (!op || e.op === op));

/**
 * A scripted compute whose behaviour is chosen per Agent, so one controller (one database)
 * can host many scenarios. Agents without a script are ready at once.
 */
export function scriptedByAgent(id?: string) {
  const prepare = new Map<string, (revision: AgentRevision, call: number) => PrepareStep>();
  const failActivation = new Map<string, (revision: AgentRevision, call: number) => boolean>();
  const failRemoval = new Map<string, (call: number) => boolean>();
  const compute = createScriptedCompute({
    ...(id ? { id } : {}),
    prepare: (revision, call) => prepare.get(revision.agentId)?.(revision, call) ?? {},
    failActivation: (revision, call) => failActivation.get(revision.agentId)?.(revision, call) ?? false,
    failRemoval: (agentId, call) => failRemoval.get(agentId)?.(call) ?? false,
  });
  return { compute, prepare, failActivation, failRemoval };
}

/** A separate reconcile worker on the controller's database (as `occ worker` would run). */
export function startExtraWorker(
  t: TestController,
  compute: ComputeDriver,
  options: { settings?: Partial<WorkerSettings>; backoff?: Backoff; log?: (event: string, fields: Record<string, unknown>) => void; database?: Database; workerId?: string } = {},
) {
  return composeWorker({
    database: options.database ?? t.database,
    ...(options.workerId ? { workerId: options.workerId } : {}),
    compute,
    secrets: t.controller.deps.secrets,
    settings: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50, ensureActiveMs: 0, ...options.settings },
    backoff: options.backoff ?? { baseMs: 50, capMs: 500 },
    ...(options.log ? { log: options.log } : {}),
  });
}

/**
 * A view of `db` whose calls can be held back, like a connection that silently stalls: while
 * stalled, every new call waits (nothing reaches the database); `resume` lets the held calls
 * through late, as a recovered connection would. Calls already running are not affected.
 */
export function stallable(db: Database): { database: Database; stall(): void; resume(): void; held(): number } {
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  let held = 0;
  const pass = async () => {
    while (gate !== null) {
      held++;
      await gate;
      held--;
    }
  };
  const database: Database = {
    kind: db.kind,
    query: async (text, params) => (await pass(), db.query(text, params)),
    exec: async (script) => (await pass(), db.exec(script)),
    transaction: async (fn) => (await pass(), db.transaction(fn)),
    close: async () => {},
  };
  return {
    database,
    stall() {
      if (!gate) gate = new Promise((resolve) => (open = resolve));
    },
    resume() {
      gate = null;
      open();
    },
    held: () => held,
  };
}

/**
 * Two Agents deployed on a scripted target: one running its revision `one`, one deployed and then
 * stopped (its stop done on the target). What a test of "which running Agents does the worker
 * look at" starts from.
 */
export async function runningAndStoppedAgents(t: TestController, effects: readonly Effect[]): Promise<{ running: DeployTarget; one: AgentRevision; stopped: DeployTarget }> {
  const running = await newDeployTarget(t);
  const one = await admit(t, running);
  const activated = await waitTerminal(t, running, one.id);
  if (activated.state !== 'succeeded' || activated.active !== true) throw new Error(`the running Agent's deploy ended ${JSON.stringify(activated)}`);
  const stopped = await newDeployTarget(t);
  const other = await admit(t, stopped);
  const deployed = await waitTerminal(t, stopped, other.id);
  if (deployed.state !== 'succeeded') throw new Error(`the stopped Agent's deploy ended ${JSON.stringify(deployed)}`);
  const stop = await t.request({ method: 'POST', url: `${stopped.url}/stop` });
  if (stop.status !== 202) throw new Error(`stop → ${stop.status} ${stop.raw}`);
  await waitFor(
    'the stop',
    async () => effects.some((e) => e.op === 'stop' && e.agentId === stopped.agentId && e.outcome === 'ok'),
    (done) => done,
  );
  return { running, one, stopped };
}
