import type { AgentRevision } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnitOfWork } from '../../src/core/ports/state.ts';
import { recoverActiveRevisions } from '../../src/worker/recover-active.ts';
import type { WorkerDeps } from '../../src/worker/worker-deps.ts';
import { runningAndStoppedAgents, scriptedByAgent, startExtraWorker, waitFor } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { standInRevision } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/** After a worker starts, what the pointers name on its ComputeDriver runs again: the same `restoreRevision` as a bring-back. */
describe('a starting worker restores the active revisions of its ComputeDriver', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 } });
  });
  afterAll(async () => t?.close());

  it('[K-7][S-2] restores what each running Agent’s pointer names, before its first claim; nothing of a stopped Agent, nothing on another ComputeDriver', async () => {
    const { running, one, stopped } = await runningAndStoppedAgents(t, effects);

    const elsewhere = createScriptedCompute({ id: 'another-driver' });
    const before = effects.length;
    const restarted = startExtraWorker(t, script.compute);
    const unrelated = startExtraWorker(t, elsewhere);
    try {
      const restored = await waitFor(
        'the restore',
        async () => effects.slice(before).filter((e) => e.op === 'restore' && e.agentId === running.agentId),
        (found) => found.length > 0,
      );
      expect(restored.map((e) => [e.revisionId, e.cause, e.outcome])).toEqual([[one.id, 'recovery', 'ok']]);
      expect(effects.slice(before).filter((e) => e.agentId === stopped.agentId)).toEqual([]);
      expect(elsewhere.effects).toEqual([]);
    } finally {
      await restarted.stop();
      await unrelated.stop();
    }
  });

  it('a database that does not answer is asked again; one Agent that cannot be restored does not hold up the next', async () => {
    const compute = createScriptedCompute();
    const revisions = [standInRevision({}).revision, standInRevision({}).revision].map((r) => ({ ...r, computeDriverId: compute.id }));
    const [failing, next] = revisions as [AgentRevision, AgentRevision];
    let reads = 0;
    const uow = {
      revisions: {
        activeOnCompute: async () => revisions.map((r) => ({ namespaceId: r.namespaceId, agentId: r.agentId, revisionId: r.id })),
        get: async (_ns: string, _agent: string, id: string) => revisions.find((r) => r.id === id) ?? null,
      },
    } as unknown as UnitOfWork;
    const events: string[] = [];
    const deps = {
      compute: {
        ...compute,
        // The first Agent's target throws; the second must still be restored.
        restoreRevision: async (...args: Parameters<typeof compute.restoreRevision>) => {
          if (args[0].id === failing.id) throw new Error('engine unavailable');
          return compute.restoreRevision(...args);
        },
      },
      state: {
        read: async <T>(fn: (u: UnitOfWork) => Promise<T>) => {
          reads += 1;
          if (reads === 1) throw new Error('connection refused');
          return fn(uow);
        },
      },
      log: (event: string) => events.push(event),
    } as unknown as WorkerDeps;
    await recoverActiveRevisions(deps, AbortSignal.timeout(10_000), 20);
    expect(reads).toBe(2);
    expect(events).toEqual(['worker.recovery_failed', 'worker.recovery_failed']);
    expect(compute.effects.map((e) => [e.op, e.revisionId, e.cause])).toEqual([['restore', next.id, 'recovery']]);
  });
});
