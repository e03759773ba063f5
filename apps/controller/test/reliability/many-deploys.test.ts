import { afterEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../../../test-support/scripted-compute.ts';
import { startApiWorld, createAgents, waitFor, type ApiWorld } from '../../../../test-support/reliability-world.ts';
import { startWorkerProcess, type WorkerProcess } from '../../../../test-support/worker-processes.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../../../../test-support/private-postgres.ts';

const PG_URL = process.env.OCC_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** No two effects on one Agent overlap in time, whichever workers ran them. */
function overlaps(effects: Effect[]): string[] {
  const byAgent = new Map<string, Effect[]>();
  for (const e of effects) byAgent.set(e.agentId, [...(byAgent.get(e.agentId) ?? []), e]);
  const found: string[] = [];
  for (const [agent, list] of byAgent) {
    const sorted = list.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.startedAt < (sorted[i - 1]!.endedAt ?? Infinity))
        found.push(`${agent}: ${sorted[i - 1]!.op}@${sorted[i - 1]!.pid} overlaps ${sorted[i]!.op}@${sorted[i]!.pid}`);
    }
  }
  return found;
}

async function deployAll(w: ApiWorld, agents: string[], perAgent: number): Promise<Map<string, string[]>> {
  const revisions = new Map<string, string[]>(agents.map((a) => [a, []]));
  for (let round = 0; round < perAgent; round++) {
    await Promise.all(
      agents.map(async (agent) => {
        for (;;) {
          // Each round redeploys the same snapshot: `restart` makes it a new revision (a plain one would be a no-op).
          const res = await w.request('POST', `/namespaces/${w.ns}/agents/${agent}/deploy`, { restart: true });
          if (res.status === 202) return void revisions.get(agent)!.push(res.body.data.id);
          if (res.status !== 503 && res.status !== 500) throw new Error(`deploy → ${res.status}`);
          await new Promise((r) => setTimeout(r, 200)); // the database is restarting: retry
        }
      }),
    );
  }
  return revisions;
}

async function expectConverged(w: ApiWorld, revisions: Map<string, string[]>) {
  await waitFor(
    'every work item to end',
    async () => {
      const { rows } = await w.database.query<{ n: number }>("SELECT count(*)::int AS n FROM work_items WHERE state IN ('queued', 'claimed')");
      return rows[0]!.n === 0;
    },
    120_000,
    250,
  );
  const { rows: items } = await w.database.query<{ revision_id: string; n: number }>(
    'SELECT revision_id, count(*)::int AS n FROM work_items WHERE revision_id IS NOT NULL GROUP BY revision_id',
  );
  expect(items.every((r) => r.n === 1)).toBe(true);
  for (const [agent, revs] of revisions) {
    const statuses = await Promise.all(revs.map(async (rev) => (await w.request('GET', `/namespaces/${w.ns}/agents/${agent}/deployments/${rev}`)).body.data));
    expect(statuses.map((s) => s.state).every((s: string) => s === 'succeeded' || s === 'failed' || s === 'superseded')).toBe(true);
    const prepared = statuses.filter((s) => s.state === 'succeeded').map((s) => s.revision);
    const newestPrepared = statuses.find((s) => s.revision === Math.max(...prepared));
    const current = (await w.request('GET', `/namespaces/${w.ns}/agents/${agent}`)).body.data;
    expect(current.activeRevisionId).toBe(newestPrepared.revisionId);
    // The newest revision always wins: every older one was superseded or activated earlier.
    expect(newestPrepared.revision).toBe(revs.length);
  }
}

describe.runIf(process.env.OCC_TEST_DB === 'postgres')('reliability: many deploys, several workers', () => {
  let world: ApiWorld | undefined;
  let privatePg: PrivatePostgres | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    await world?.close().catch(() => {});
    world = undefined;
    privatePg?.stop();
    privatePg = undefined;
  });

  it('200 deploys across 20 Agents with 4 workers: all end, pointers name the newest, no Agent is worked on twice at once', async () => {
    world = await startApiWorld(PG_URL);
    const w = world;
    const agents = await createAgents(w, 20);
    for (let i = 0; i < 4; i++) workers.push(await startWorkerProcess({ DATABASE_URL: w.schemaUrl, EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '20', LEASE_MS: '3000' }));
    const revisions = await deployAll(w, agents, 10);
    expect([...revisions.values()].flat()).toHaveLength(200);
    await expectConverged(w, revisions);
    expect(overlaps(w.effects())).toEqual([]);
    expect(new Set(w.effects().map((e) => e.pid)).size).toBeGreaterThan(1);
  });

  it('PostgreSQL restarted mid-run: workers and API recover without losing or duplicating work', async () => {
    privatePg = await startPrivatePostgres();
    world = await startApiWorld(privatePg.url);
    const w = world;
    const agents = await createAgents(w, 5);
    for (let i = 0; i < 2; i++) workers.push(await startWorkerProcess({ DATABASE_URL: w.schemaUrl, EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '150', LEASE_MS: '2000' }));
    const first = await deployAll(w, agents, 2);
    privatePg.restart();
    const second = await deployAll(w, agents, 2);
    const revisions = new Map(agents.map((a) => [a, [...first.get(a)!, ...second.get(a)!]]));
    await expectConverged(w, revisions);
    expect(overlaps(w.effects())).toEqual([]);
    expect(workers.every((p) => p.child.exitCode === null)).toBe(true);
  });
});
