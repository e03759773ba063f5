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
// A rename needs no decision on the current Agent and is one statement (the database's row lock
// orders the writers); any other change is decided on the Agent as read, taking turns.
const changes = [
  { path: 'a rename', change: (name: string) => ({ name }) },
  { path: 'a change decided on the current Agent', change: (name: string) => ({ name, pluginApprovers: null }) },
] as const;

describe.each(changes)('concurrent Agent PATCHes: $path', ({ change }) => {
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
    (await t.database.query<{ details: { version: number } }>(`SELECT details FROM audit_events WHERE action = 'agents.update' AND resource_id = $1`, [agentId])).rows
      .map((r) => r.details.version)
      .sort((a, b) => a - b);

  it('[V-7] without If-Match every writer succeeds once, in some order: versions 2…N+1, one audit event each', async () => {
    const { url, id } = await newAgent();
    const names = Array.from({ length: 8 }, (_, i) => uniqueName(`w${i}`));
    const answers = await Promise.all(names.map((name) => t.request({ method: 'PATCH', url, body: change(name) })));
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
    const writes = replicas(5).flatMap((deps, r) => [0, 1].map((i) => updateAgent(deps, caller, ns, id, change(uniqueName(`r${r}-${i}`)))));
    const written = await Promise.all(writes);
    expect(written.map((a) => a.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(written.find((a) => a.version === 11));
    expect(await auditVersions(id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('with one If-Match across replicas exactly one writer wins; the others get 412', async () => {
    const { id, ns } = await newAgent();
    const caller = await authenticate(t.controller.deps, `Bearer ${t.adminKey}`, 'req_concurrency');
    const outcomes = await Promise.all(
      replicas(4).map((deps, r) =>
        updateAgent(deps, caller, ns, id, change(uniqueName(`r${r}`)), 1).then(
          () => 'ok',
          (e: unknown) => (e instanceof OccError ? e.code : e),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'ok']);
    expect(await auditVersions(id)).toEqual([2]);
  });

  it('with the same If-Match exactly one writer wins; the others get 412 and write nothing', async () => {
    const { url, id } = await newAgent();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => t.request({ method: 'PATCH', url, body: change(uniqueName(`m${i}`)), headers: { 'if-match': '"1"' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(winner.body.data);
    expect(await auditVersions(id)).toEqual([2]);
  });
});

describe('a rename is one statement, and says in its audit event what any other change says', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  it('[V-7] the same audit summary as a change decided on the Agent; a token-shaped name is redacted in it', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
    const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id as string;
    const plugins = { '@openclaw/nostr': { enabled: true, toolDefaults: { approval: 'none' } } };
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw', plugins });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    const tokenName = `agent sk-${'x'.repeat(24)}`;
    expect((await t.request({ method: 'PATCH', url, body: { name: tokenName }, headers: { 'if-match': '"1"' } })).status).toBe(200);
    expect((await t.request({ method: 'PATCH', url, body: { name: 'decided', plugins } })).status).toBe(200);
    const { rows } = await t.database.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM audit_events WHERE action = 'agents.update' AND resource_id = $1 ORDER BY seq`,
      [agent.id],
    );
    const summary = { configurationId: cfg, harnessAuthSecretId: null, pluginIds: ['@openclaw/nostr'] };
    expect(rows.map((r) => r.details)).toEqual([
      { ...summary, name: 'agent [redacted]', version: 2, changed: ['name'] },
      { ...summary, name: 'decided', version: 3, changed: ['name', 'plugins'] },
    ]);
  });

  it('a stale If-Match is 412 and a missing Agent 404, and neither writes', async () => {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id as string;
    const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id as string;
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    expect((await t.request({ method: 'PATCH', url, body: { name: uniqueName('s') }, headers: { 'if-match': '"2"' } })).status).toBe(412);
    const missing = `/namespaces/${ns}/agents/${agent.id.replace(/.$/, (c: string) => (c === '0' ? '1' : '0'))}`;
    expect((await t.request({ method: 'PATCH', url: missing, body: { name: uniqueName('m') }, headers: { 'if-match': '"1"' } })).status).toBe(404);
    expect((await t.request({ method: 'PATCH', url: missing, body: { name: uniqueName('m') } })).status).toBe(404);
    expect((await t.request({ method: 'GET', url })).body.data).toEqual(agent);
    const { rows } = await t.database.query(`SELECT 1 FROM audit_events WHERE action = 'agents.update' AND resource_id = $1`, [agent.id]);
    expect(rows).toEqual([]);
  });
});
