import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnitOfWork } from '../../src/core/ports/state.ts';
import type { Claim, WorkQueue } from '../../src/core/ports/work-queue.ts';
import { readObservedState } from '../../src/core/use-cases/observed-state.ts';
import { unitOfWork } from '../../src/state/state-store.ts';
import { createWorkQueue } from '../../src/state/work-queue/index.ts';
import { admit, newDeployTarget, sleep, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

/**
 * The gauges the metrics listener reads at each scrape (docs/observability.md), on both engines:
 * the open work items by kind and state with the oldest ready one's age, and every Agent by phase
 * and ComputeDriver, each phase read from its desired state and its latest deploy's work item.
 */
describe('the observed state behind the metrics gauges', () => {
  let t: TestController;
  let queue: WorkQueue<UnitOfWork>;
  const agents: Record<'running' | 'failed' | 'waiting' | 'queued' | 'stopped', DeployTarget> = {} as never;

  beforeAll(async () => {
    t = await startTestController();
    queue = createWorkQueue(t.database, { bind: unitOfWork });
  });
  afterAll(async () => t?.close());

  it('is empty before anything was deployed, but for the Agents never deployed', async () => {
    expect(await readObservedState(t.controller.deps.state)).toEqual({ workQueue: [], agents: [] });
    const cfg = await adminCreate(t, `/namespaces/${t.defaultNamespaceId}/configurations`, { name: uniqueName('c'), values: {} });
    await adminCreate(t, `/namespaces/${t.defaultNamespaceId}/agents`, { name: uniqueName('idle'), configurationId: cfg.id, harness: 'openclaw' });
    expect(await readObservedState(t.controller.deps.state)).toEqual({ workQueue: [], agents: [{ phase: 'undeployed', compute: 'none', count: 1 }] });
  });

  it('counts open items by kind and state and ages the oldest ready one; reads each Agent from its latest deploy', async () => {
    for (const name of ['running', 'failed', 'waiting', 'queued', 'stopped'] as const) {
      agents[name] = await newDeployTarget(t);
      await admit(t, agents[name]);
    }
    const claims: Claim[] = [];
    for (let i = 0; i < 3; i++) claims.push((await queue.claim('test-worker', 60_000))!);
    const claimOf = (target: DeployTarget) => claims.find((c) => c.item.agentId === target.agentId)!;
    // Claimed oldest first: the first three admitted.
    await queue.complete(claimOf(agents.running), 'REVISION_ACTIVATED', null);
    await queue.fail(claimOf(agents.failed), 'INVALID_TARGET', 'gone');
    await queue.defer(claimOf(agents.waiting), 'RUNTIME_STARTING', 60_000);
    const stopped = await t.request({ method: 'POST', url: `${agents.stopped.url}/stop` });
    expect(stopped.status).toBe(202);
    const held = (await queue.claim('test-worker', 60_000))!;
    expect(held.item.agentId).toBe(agents.queued.agentId);
    await sleep(300);

    const observed = await readObservedState(t.controller.deps.state);
    // Open: queued's claimed reconcile; waiting's deferred one (delayed); stopped's reconcile and its stop (ready, one lane, oldest first).
    expect(observed.workQueue).toEqual([
      { kind: 'reconcile_revision', ready: 1, delayed: 1, claimed: 1, oldestReadySeconds: expect.any(Number) },
      { kind: 'stop_agent', ready: 1, delayed: 0, claimed: 0, oldestReadySeconds: expect.any(Number) },
    ]);
    const [reconcile, stop] = observed.workQueue;
    expect(reconcile!.oldestReadySeconds).toBeGreaterThanOrEqual(0.3);
    expect(reconcile!.oldestReadySeconds).toBeLessThan(60);
    expect(stop!.oldestReadySeconds).toBeGreaterThan(0);
    expect(stop!.oldestReadySeconds).toBeLessThan(reconcile!.oldestReadySeconds);
    expect(observed.agents).toEqual([
      { phase: 'deploying', compute: 'scripted', count: 2 },
      { phase: 'failed', compute: 'scripted', count: 1 },
      { phase: 'running', compute: 'scripted', count: 1 },
      { phase: 'stopped', compute: 'scripted', count: 1 },
      { phase: 'undeployed', compute: 'none', count: 1 },
    ]);

    // Finished items are history, never depth: the claimed one done, nothing of its kind is claimed.
    await queue.complete(held, 'REVISION_ACTIVATED', null);
    const after = await readObservedState(t.controller.deps.state);
    expect(after.workQueue[0]).toMatchObject({ kind: 'reconcile_revision', ready: 1, delayed: 1, claimed: 0 });
    expect(after.agents.find((a) => a.phase === 'running')).toEqual({ phase: 'running', compute: 'scripted', count: 2 });
  });
});
