import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld, type OccResult } from '../../../../test-support/cli-world.ts';
import { uniqueName } from '../../../../test-support/world.ts';

function json<T = any>(result: OccResult): T {
  expect(result.stderr, result.stderr).not.toMatch(/error/);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** `occ audit`'s filters: actor, action, -n, resource and time, each resolved to what the API filters on. */
describe('occ audit filters', () => {
  let world: CliWorld;
  const api = (method: 'POST' | 'PATCH', url: string, body: unknown, key?: string) => world.controller.request({ method, url, body, ...(key ? { key } : {}) });
  const made = { ns: '', nsName: '', secret: '', secretName: '', agent: '', agentName: '', actor: '', actorName: '', start: '' };
  const actions = async (...args: string[]) => (json(await world.occ(['audit', '-o', 'json', '--limit', '200', ...args])).items as any[]).map((e) => e.action);

  beforeAll(async () => {
    world = await startCliWorld();
    made.start = new Date(Date.now() - 1000).toISOString();
    made.nsName = uniqueName('audit');
    made.ns = (await api('POST', '/namespaces', { name: made.nsName }, undefined)).body.data.id;
    made.secretName = uniqueName('s');
    made.secret = (await api('POST', `/namespaces/${made.ns}/secrets`, { name: made.secretName, value: 'v' })).body.data.id;
    expect((await api('PATCH', `/namespaces/${made.ns}/secrets/${made.secret}`, { value: 'v2' })).status).toBe(200);
    const cfg = (await api('POST', `/namespaces/${made.ns}/configurations`, { name: uniqueName('c'), values: {} })).body.data.id;
    made.agentName = uniqueName('a');
    made.agent = (await api('POST', `/namespaces/${made.ns}/agents`, { name: made.agentName, configurationId: cfg, harness: 'openclaw' })).body.data.id;
    // Another actor, allowed to create Namespaces only.
    made.actorName = uniqueName('ci');
    made.actor = (await api('POST', '/principals', { kind: 'service', name: made.actorName })).body.data.id;
    const key = (await api('POST', `/principals/${made.actor}/api-keys`, { name: 'k' })).body.data.key;
    const role = (await api('POST', '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'create', resourceKind: 'namespace' }] })).body.data.id;
    await api('POST', '/iam/access-bindings', { principalId: made.actor, roleId: role });
    expect((await api('POST', '/namespaces', { name: uniqueName('by-ci') }, key)).status).toBe(201);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('--actor by name or id, --action exact or prefix', async () => {
    expect(await actions('--actor', made.actorName)).toEqual(['namespaces.create']);
    expect(await actions('--actor', made.actor)).toEqual(['namespaces.create']);
    expect(await actions('--action', 'secrets.*', '-n', made.nsName)).toEqual(['secrets.update', 'secrets.create']);
    expect(await actions('--action', 'secrets.update', '-n', made.nsName)).toEqual(['secrets.update']);
  });

  it('-n filters by Namespace only when given; the context default does not filter', async () => {
    expect(await actions('-n', made.nsName)).toEqual(['agents.create', 'configurations.create', 'secrets.update', 'secrets.create', 'namespaces.create']);
    expect(await actions('-n', made.ns)).toHaveLength(5);
    // The world's context names the `default` Namespace: without -n, every Namespace's events.
    const all = await actions();
    expect(all).toContain('principals.create');
    expect(all.filter((a) => a === 'namespaces.create').length).toBeGreaterThanOrEqual(2);
  });

  it('--resource KIND, KIND/NAME (in -n) and KIND/ID', async () => {
    expect(await actions('--resource', `secret/${made.secretName}`, '-n', made.nsName)).toEqual(['secrets.update', 'secrets.create']);
    expect(await actions('--resource', `secret/${made.secret}`)).toEqual(['secrets.update', 'secrets.create']);
    expect(await actions('--resource', `agent/${made.agentName}`, '-n', made.nsName)).toEqual(['agents.create']);
    expect(await actions('--resource', `namespace/${made.nsName}`)).toEqual(['namespaces.create']);
    expect(await actions('--resource', 'api_key')).toEqual(['api_keys.create']);
  });

  it('--since and --until take a time ago or an RFC 3339 time', async () => {
    expect(await actions('--since', '1h', '--actor', made.actorName)).toEqual(['namespaces.create']);
    expect(await actions('--since', made.start, '--actor', made.actorName)).toEqual(['namespaces.create']);
    expect(await actions('--until', made.start, '--actor', made.actorName)).toEqual([]);
    expect(await actions('--until', '2000-01-01', '--actor', made.actorName)).toEqual([]);
  });

  it('pages with the same filters; a bad value exits 2 naming the flag or the field', async () => {
    const first = json(await world.occ(['audit', '-o', 'json', '--limit', '1', '-n', made.nsName]));
    expect(first.items).toHaveLength(1);
    const second = json(await world.occ(['audit', '-o', 'json', '--limit', '1', '-n', made.nsName, '--cursor', first.nextCursor]));
    expect(second.items[0].action).toBe('configurations.create');
    const [otherFilters, badSince, badAction, badResource, unknownActor] = await Promise.all([
      world.occ(['audit', '--limit', '1', '--cursor', first.nextCursor]),
      world.occ(['audit', '--since', 'yesterday']),
      world.occ(['audit', '--action', 'agents.']),
      world.occ(['audit', '--resource', 'Agent/x']),
      world.occ(['audit', '--actor', 'nobody-by-this-name']),
    ]);
    expect([otherFilters.code, otherFilters.stderr]).toEqual([2, expect.stringMatching(/cursor/)]);
    expect([badSince.code, badSince.stderr]).toEqual([2, expect.stringMatching(/--since/)]);
    expect([badAction.code, badAction.stderr]).toEqual([2, expect.stringMatching(/action/)]);
    expect([badResource.code, badResource.stderr]).toEqual([2, expect.stringMatching(/--resource is KIND/)]);
    expect([unknownActor.code, unknownActor.stderr]).toEqual([3, expect.stringMatching(/No principal named/)]);
  });
});
