import { afterEach, describe, expect, it } from 'vitest';
import { ClaimLostError, type Claim } from '../../src/core/ports/work-queue.ts';
import { createWorkQueue } from '../../src/state/work-queue/index.ts';
import { startApiWorld, createAgents, waitFor, type ApiWorld } from '../../../../test-support/reliability-world.ts';
import { startWorkerProcess, type WorkerProcess } from '../../../../test-support/worker-processes.ts';
import { startTcpRelay, type TcpRelay } from '../../../../test-support/tcp-relay.ts';

const PG_URL = process.env.OCC_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

// Worker processes share one real PostgreSQL; PGlite is embedded in a single process.
describe.runIf(process.env.OCC_TEST_DB === 'postgres')('reliability: worker processes on one PostgreSQL', () => {
  let world: ApiWorld | undefined;
  const workers: WorkerProcess[] = [];
  let relay: TcpRelay | undefined;
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    await relay?.close();
    relay = undefined;
    await world?.close();
    world = undefined;
  });

  const status = async (w: ApiWorld, agentId: string, revId: string) => (await w.request('GET', `/namespaces/${w.ns}/agents/${agentId}/deployments/${revId}`)).body.data;

  it('[K-9] a worker killed -9 mid-prepare: another completes after the lease, one activation, the old token is refused', async () => {
    world = await startApiWorld(PG_URL);
    const w = world;
    const [agent] = await createAgents(w, 1);
    const a = await startWorkerProcess({ DATABASE_URL: w.schemaUrl, EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '8000', LEASE_MS: '1000' });
    workers.push(a);
    const rev = (await w.request('POST', `/namespaces/${w.ns}/agents/${agent}/deploy`)).body.data;
    await waitFor('A to start preparing', async () => w.effects().some((e) => e.op === 'prepare' && e.pid === a.child.pid));
    const { rows } = await w.database.query<{ claim_token: string }>('SELECT claim_token FROM work_items WHERE revision_id = $1', [rev.id]);
    const oldToken = rows[0]!.claim_token;
    a.child.kill('SIGKILL');
    await a.exited;

    const b = await startWorkerProcess({ DATABASE_URL: w.schemaUrl, EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '0', LEASE_MS: '1000' });
    workers.push(b);
    const done = await waitFor('the deploy to finish', async () => {
      const s = await status(w, agent!, rev.id);
      return s.state === 'succeeded' || s.state === 'failed' ? s : null;
    });
    expect(done).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true });
    const activations = w.effects().filter((e) => e.op === 'activate' && e.revisionId === rev.id);
    expect(activations).toHaveLength(1);
    expect(activations[0]!.pid).toBe(b.child.pid);

    const queue = createWorkQueue(w.database);
    const item = (await queue.get(`agent_revision:${rev.id}:reconcile`))!;
    const stale: Claim = { item, token: oldToken, leaseExpiresAt: new Date(Date.now() + 60_000) };
    await expect(queue.complete(stale, 'REVISION_ACTIVATED', null)).rejects.toBeInstanceOf(ClaimLostError);
    await expect(queue.heartbeat(stale, 1000)).rejects.toBeInstanceOf(ClaimLostError);
  });

  it('[K-9] a worker whose database connection silently stalls aborts its effect when the lease runs out and publishes nothing', async () => {
    world = await startApiWorld(PG_URL);
    const w = world;
    const [agent] = await createAgents(w, 1);
    relay = await startTcpRelay(Number(new URL(PG_URL).port || 5432));
    const relayed = new URL(w.schemaUrl);
    relayed.port = String(relay.port);
    const a = await startWorkerProcess({ DATABASE_URL: relayed.toString(), EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '10000', LEASE_MS: '1500' });
    workers.push(a);
    const rev = (await w.request('POST', `/namespaces/${w.ns}/agents/${agent}/deploy`)).body.data;
    await waitFor('A to start preparing', async () => w.effects().some((e) => e.op === 'prepare' && e.pid === a.child.pid));
    const stalledAt = Date.now();
    relay.stall();

    const aborted = await waitFor('A to abort its prepare', async () => w.effects().find((e) => e.pid === a.child.pid && e.op === 'prepare' && e.outcome === 'aborted'), 15_000);
    // Aborted locally at the last confirmed lease (≤ 1.5 s after the stall), long before the 10 s effect would end.
    expect(aborted.endedAt! - stalledAt).toBeLessThan(4_000);

    const b = await startWorkerProcess({ DATABASE_URL: w.schemaUrl, EFFECT_LOG: w.effectLog, PREPARE_DELAY_MS: '0', LEASE_MS: '1500' });
    workers.push(b);
    const done = await waitFor('B to finish the deploy', async () => {
      const s = await status(w, agent!, rev.id);
      return s.state === 'succeeded' || s.state === 'failed' ? s : null;
    });
    expect(done).toMatchObject({ state: 'succeeded', active: true });
    relay.resume();
    await new Promise((r) => setTimeout(r, 1500));
    const byA = w.effects().filter((e) => e.pid === a.child.pid && e.op !== 'prepare');
    expect(byA).toEqual([]);
    const item = (await createWorkQueue(w.database).get(`agent_revision:${rev.id}:reconcile`))!;
    expect(item).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
  });
});
