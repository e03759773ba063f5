import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';
import { KeyedTurns } from '../../src/core/keyed-turns.ts';
import { OccError } from '../../src/core/errors.ts';
import { authenticate } from '../../src/core/use-cases/authenticate.ts';
import { updateAgent } from '../../src/core/use-cases/agents.ts';

// PATCH writes optimistically (decide, then write at the version decided on). In one process the
// writers of an Agent take turns; across processes they race on the version. Either way they
// must behave as if each had waited for the other's row lock.
describe('concurrent Agent PATCHes', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  async function newAgent() {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
    const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id as string;
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    return { url: `/namespaces/${ns}/agents/${agent.id}`, id: agent.id as string, ns };
  }
  const auditVersions = async (agentId: string) =>
    (await t.database.query<{ details: { version: number } }>(
      `SELECT details FROM audit_events WHERE action = 'agents.update' AND resource_id = $1`, [agentId],
    )).rows.map((r) => r.details.version).sort((a, b) => a - b);

  it('[V-7] without If-Match every writer succeeds once, in some order: versions 2…N+1, one audit event each', async () => {
    const { url, id } = await newAgent();
    const names = Array.from({ length: 8 }, (_, i) => uniqueName(`w${i}`));
    const answers = await Promise.all(names.map((name) => t.request({ method: 'PATCH', url, body: { name } })));
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 200));
    const versions = answers.map((a) => a.body.data.version as number).sort((a, b) => a - b);
    expect(versions).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(answers.map((a) => a.headers.etag)).toEqual(answers.map((a) => `"${a.body.data.version}"`));
    const last = answers.find((a) => a.body.data.version === 9)!;
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(last.body.data);
    expect(await auditVersions(id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  /** Controllers sharing one database, each with its own turn-taking (replicas). */
  const replicas = (n: number) => Array.from({ length: n }, () => ({ ...t.controller.deps, agentWrites: new KeyedTurns<never>() }));

  it('[V-7] writers in several replicas race on the version and still each succeed once, with one audit event each', async () => {
    const { id, ns, url } = await newAgent();
    const caller = await authenticate(t.controller.deps, `Bearer ${t.adminKey}`, 'req_concurrency');
    const writes = replicas(5).flatMap((deps, r) => [0, 1].map((i) => updateAgent(deps, caller, ns, id, { name: uniqueName(`r${r}-${i}`) })));
    const written = await Promise.all(writes);
    expect(written.map((a) => a.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(written.find((a) => a.version === 11));
    expect(await auditVersions(id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('with one If-Match across replicas exactly one writer wins; the others get 412', async () => {
    const { id, ns } = await newAgent();
    const caller = await authenticate(t.controller.deps, `Bearer ${t.adminKey}`, 'req_concurrency');
    const outcomes = await Promise.all(replicas(4).map((deps, r) =>
      updateAgent(deps, caller, ns, id, { name: uniqueName(`r${r}`) }, 1).then(() => 'ok', (e: unknown) => (e instanceof OccError ? e.code : e))));
    expect(outcomes.sort()).toEqual(['PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'ok']);
    expect(await auditVersions(id)).toEqual([2]);
  });

  it('with the same If-Match exactly one writer wins; the others get 412 and write nothing', async () => {
    const { url, id } = await newAgent();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      t.request({ method: 'PATCH', url, body: { name: uniqueName(`m${i}`) }, headers: { 'if-match': '"1"' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(winner.body.data);
    expect(await auditVersions(id)).toEqual([2]);
  });
});
