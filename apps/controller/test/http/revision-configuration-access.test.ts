import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@occ/contracts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * A revision's Configuration snapshot (values and Secret bindings) is that Configuration's
 * content: Agent read shows the revision, but the snapshot only to callers who may read the
 * Configuration itself (exact-resource or Namespace-wide `configuration:read`). Everyone else
 * gets `configuration: {id, generation, withheld: true}`. Canaries in the values, the bound
 * variable's name and the bound Secret's id must never reach them, on any route.
 */
const AGENT_READ = [{ action: 'read', resourceKind: 'agent' }];
const CONFIGURATION_READ = [{ action: 'read', resourceKind: 'configuration' }];

interface Scenario {
  ns: string;
  cfg: string;
  otherCfg: string;
  secret: string;
  agent: string;
  rev: string;
  /** Strings only a reader of the Configuration may see. */
  canaries: string[];
  values: Record<string, unknown>;
  secretBindings: Record<string, { secretId: string }>;
}

describe('revision reads respect Configuration access', () => {
  let t: TestController;
  let s: Scenario;

  /** A Namespace, a Configuration carrying canaries and a bound Secret, an Agent on it, deployed once. */
  async function scenario(): Promise<Scenario> {
    const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
    const valueCanary = `cfg-canary-${randomBytes(12).toString('hex')}`;
    const envCanary = `CANARY_${randomBytes(8).toString('hex').toUpperCase()}`;
    const secret = (await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: `secret-${randomBytes(12).toString('hex')}` })).id;
    const values = { gateway: { note: valueCanary } };
    const secretBindings = { [envCanary]: { secretId: secret } };
    const cfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values, secretBindings })).id;
    const otherCfg = (await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} })).id;
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg, harness: 'openclaw' });
    // The Agent's own principal must hold secret:operate on what the revision binds.
    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret } });
    const deployed = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent.id}/deploy` });
    if (deployed.status !== 202) throw new Error(`deploy → ${deployed.status} ${deployed.raw}`);
    return { ns, cfg, otherCfg, secret, agent: agent.id, rev: deployed.body.data.id, canaries: [valueCanary, envCanary, secret], values, secretBindings };
  }

  const agentUrl = (x: Scenario) => `/namespaces/${x.ns}/agents/${x.agent}`;
  const getRevision = (x: Scenario, key: string) => t.request({ method: 'GET', url: `${agentUrl(x)}/revisions/${x.rev}`, key });
  const listRevisions = (x: Scenario, key: string) => t.request({ method: 'GET', url: `${agentUrl(x)}/revisions`, key });
  const leaked = (res: TestResponse, x: Scenario) => x.canaries.filter((c) => res.raw.includes(c));

  /** A principal with Agent read on the Namespace plus `extra` bindings. */
  async function reader(x: Scenario, ...extra: { permissions: { action: string; resourceKind: string }[]; scope: Parameters<typeof grant>[3] }[]) {
    const p = await newPrincipal(t);
    await grant(t, p.id, AGENT_READ, { namespaceId: x.ns });
    for (const e of extra) await grant(t, p.id, e.permissions, e.scope);
    return p;
  }

  function expectWithheld(res: TestResponse, x: Scenario) {
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.configuration).toEqual({ id: x.cfg, generation: 1, withheld: true });
    expect(leaked(res, x)).toEqual([]);
  }

  function expectShown(res: TestResponse, x: Scenario) {
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.configuration).toEqual({ id: x.cfg, generation: 1, withheld: false, values: x.values, secretBindings: x.secretBindings });
  }

  beforeAll(async () => {
    t = await startTestController();
    s = await scenario();
  });
  afterAll(async () => t?.close());

  it('[V-2] Agent read alone: the revision is served without its Configuration snapshot (single read and list); the Configuration itself is 404', async () => {
    const p = await reader(s);
    expect((await t.request({ method: 'GET', url: `/namespaces/${s.ns}/configurations/${s.cfg}`, key: p.key })).status).toBe(404);

    const one = await getRevision(s, p.key);
    expectWithheld(one, s);
    expect(one.body.data).toMatchObject({ id: s.rev, agentId: s.agent, revision: 1, harness: 'openclaw' });

    const list = await listRevisions(s, p.key);
    expect(list.status, list.raw).toBe(200);
    expect(list.body.data.items.map((r: { id: string }) => r.id)).toEqual([s.rev]);
    expect(list.body.data.items[0].configuration).toEqual({ id: s.cfg, generation: 1, withheld: true });
    expect(leaked(list, s)).toEqual([]);
  });

  it('[V-2] every GET route of the route table, read by an Agent-only reader, keeps the snapshot to itself (the same sweep shows it to the administrator)', async () => {
    const p = await reader(s);
    const idBySegment: Record<string, string> = {
      namespaces: s.ns,
      agents: s.agent,
      configurations: s.cfg,
      secrets: s.secret,
      revisions: s.rev,
      deployments: s.rev,
      principals: p.id,
    };
    const urlOf = (path: string) =>
      path
        .split('/')
        .map((seg, i, all) => (seg.startsWith(':') ? (idBySegment[all[i - 1]!] ?? 'none') : seg))
        .join('/');
    const gets = routeTable.filter((r) => r.method === 'GET');
    const swept: Record<string, { reader: TestResponse; admin: TestResponse }> = {};
    for (const route of gets) {
      const url = urlOf(route.path);
      swept[route.operationId] = { reader: await t.request({ method: 'GET', url, key: p.key }), admin: await t.request({ method: 'GET', url }) };
    }
    const leaks = Object.entries(swept).flatMap(([op, r]) => leaked(r.reader, s).map((c) => `${op} → ${r.reader.status} contains ${c.slice(0, 14)}…`));
    expect(leaks).toEqual([]);
    // The sweep reached the revision routes as a reader, and can see a leak where one is allowed.
    for (const op of ['getAgentRevision', 'listAgentRevisions', 'getDeploymentStatus', 'getAgent']) expect(swept[op]!.reader.status, op).toBe(200);
    expect(leaked(swept.getAgentRevision!.admin, s)).toEqual(s.canaries);
    expect(leaked(swept.listAgentRevisions!.admin, s)).toEqual(s.canaries);
  });

  it('configuration:read bound to exactly that Configuration shows the snapshot; one bound to another Configuration does not', async () => {
    const exact = await reader(s, { permissions: CONFIGURATION_READ, scope: { namespaceId: s.ns, resource: { kind: 'configuration', id: s.cfg } } });
    expectShown(await getRevision(s, exact.key), s);
    const list = await listRevisions(s, exact.key);
    expect(list.body.data.items[0].configuration).toEqual({ id: s.cfg, generation: 1, withheld: false, values: s.values, secretBindings: s.secretBindings });

    const elsewhere = await reader(s, { permissions: CONFIGURATION_READ, scope: { namespaceId: s.ns, resource: { kind: 'configuration', id: s.otherCfg } } });
    expectWithheld(await getRevision(s, elsewhere.key), s);
    expectWithheld(await listRevisions(s, elsewhere.key).then((r) => ({ ...r, body: { data: r.body.data.items[0] } })), s);
  });

  it('a Namespace-wide configuration:read shows the snapshot; a restriction on that Configuration withholds it again', async () => {
    const wide = await reader(s, { permissions: CONFIGURATION_READ, scope: { namespaceId: s.ns } });
    expectShown(await getRevision(s, wide.key), s);
    expectShown(await listRevisions(s, wide.key).then((r) => ({ ...r, body: { data: r.body.data.items[0] } })), s);

    await adminCreate(t, '/iam/restrictions', { principalId: wide.id, action: 'read', resourceKind: 'configuration', namespaceId: s.ns, resourceId: s.cfg });
    expectWithheld(await getRevision(s, wide.key), s);
  });

  it('[A-1] deploy needs configuration:read (refused without it, canaries absent); with it the 202 carries the snapshot it admitted', async () => {
    const deployPermissions = [...AGENT_READ, { action: 'deploy', resourceKind: 'agent' }];
    const p = await newPrincipal(t);
    await grant(t, p.id, deployPermissions, { namespaceId: s.ns });
    await grant(t, p.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: s.ns, resource: { kind: 'secret', id: s.secret } });
    const refused = await t.request({ method: 'POST', url: `${agentUrl(s)}/deploy`, key: p.key });
    expect(refused.status, refused.raw).toBe(404);
    expect(refused.body.error.details).toEqual([{ path: '/configurationId', code: 'INVALID_VALUE' }]);
    expect(leaked(refused, s)).toEqual([]);

    await grant(t, p.id, CONFIGURATION_READ, { namespaceId: s.ns, resource: { kind: 'configuration', id: s.cfg } });
    const admitted = await t.request({ method: 'POST', url: `${agentUrl(s)}/deploy`, key: p.key });
    expect(admitted.status, admitted.raw).toBe(202);
    expect(admitted.body.data.configuration).toEqual({ id: s.cfg, generation: 1, withheld: false, values: s.values, secretBindings: s.secretBindings });
  });

  it('a snapshot of a since-deleted Configuration: its exact-resource readers lost access with it; Namespace-wide readers still see it', async () => {
    const x = await scenario();
    const exact = await reader(x, { permissions: CONFIGURATION_READ, scope: { namespaceId: x.ns, resource: { kind: 'configuration', id: x.cfg } } });
    const wide = await reader(x, { permissions: CONFIGURATION_READ, scope: { namespaceId: x.ns } });
    expectShown(await getRevision(x, exact.key), x);

    const moved = await t.request({ method: 'PATCH', url: agentUrl(x), body: { configurationId: x.otherCfg } });
    expect(moved.status, moved.raw).toBe(200);
    const deleted = await t.request({ method: 'DELETE', url: `/namespaces/${x.ns}/configurations/${x.cfg}` });
    expect(deleted.status, deleted.raw).toBe(204);

    expectWithheld(await getRevision(x, exact.key), x);
    expectShown(await getRevision(x, wide.key), x);
    expectShown(await getRevision(x, t.adminKey), x);
  });
});
