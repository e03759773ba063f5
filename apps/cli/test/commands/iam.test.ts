import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld, type OccResult } from '../../../../test-support/cli-world.ts';

const KEY = /^occ_[A-Za-z0-9_-]{43}$/;

function json<T = any>(result: OccResult): T {
  expect(result.stderr, result.stderr).not.toMatch(/error/);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** The table's rows as arrays of cells (headers first). */
function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('occ principals, keys, roles, bindings, restrictions and audit', () => {
  let world: CliWorld;
  const file = (name: string, text: string) => {
    const path = join(world.home, name);
    writeFileSync(path, text);
    return path;
  };
  // What the flow creates, for the later steps.
  const made = { principalId: '', roleId: '', bindingId: '', firstKeyId: '', key: '', secondKey: '' };
  const api = (method: 'GET' | 'POST', url: string, body?: unknown) => world.controller.request({ method, url, ...(body ? { body } : {}) });
  const secretsUrl = () => `/namespaces/${world.controller.defaultNamespaceId}/secrets`;

  beforeAll(async () => {
    world = await startCliWorld();
    // Something for the reader to read.
    expect((await api('POST', secretsUrl(), { name: 'probe', value: 'probe-value' })).status).toBe(201);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('a principal, its key, a role and a binding: the new key reads what the role grants and is refused the rest', async () => {
    const [principal, role] = await Promise.all([
      world.occ(['principals', 'create', 'ci-reader', '--kind', 'service', '-o', 'json']),
      world.occ([
        'roles',
        'create',
        '-f',
        file('reader.yaml', 'name: reader\npermissions:\n  - { action: read, resourceKind: namespace }\n  - { action: read, resourceKind: secret }\n'),
        '-o',
        'json',
      ]),
    ]);
    expect(json(principal)).toMatchObject({ kind: 'service', name: 'ci-reader', agentId: null });
    expect(json(role)).toMatchObject({
      name: 'reader',
      permissions: [
        { action: 'read', resourceKind: 'namespace' },
        { action: 'read', resourceKind: 'secret' },
      ],
    });
    made.principalId = json(principal).id;
    made.roleId = json(role).id;

    // --quiet: the key alone, nothing on stderr.
    const quietKey = await world.occ(['keys', 'create', '--principal', 'ci-reader', '--name', 'ci', '--quiet']);
    expect(quietKey).toMatchObject({ code: 0, stderr: '' });
    expect(quietKey.stdout.endsWith('\n') && quietKey.stdout.split('\n').length).toBe(2);
    made.key = quietKey.stdout.trim();
    expect(made.key).toMatch(KEY);

    // Names where a person types them; the scope is the Namespace given with -n.
    const binding = json(await world.occ(['bindings', 'create', '--principal', 'ci-reader', '--role', 'reader', '-n', 'default', '-o', 'json']));
    expect(binding).toMatchObject({ principalId: made.principalId, roleId: made.roleId, namespaceId: world.controller.defaultNamespaceId, resource: null });
    made.bindingId = binding.id;

    const asReader = { env: { OCC_API_KEY: made.key } };
    const [allowed, refusedCreate, refusedAdmin, bindingTable, keyList, keyTable] = await Promise.all([
      world.occ(['secrets', 'list', '-n', 'default', '-o', 'json'], asReader),
      world.occ(['secrets', 'create', 'blocked', '-n', 'default'], { ...asReader, stdin: 'value' }),
      world.occ(['principals', 'list'], asReader),
      world.occ(['bindings', 'list']),
      world.occ(['keys', 'list', '--principal', made.principalId, '-o', 'json']),
      world.occ(['keys', 'list', '--principal', 'ci-reader']),
    ]);
    expect(json(allowed).items.map((s: any) => s.name)).toEqual(['probe']);
    expect(refusedCreate.code).toBe(4);
    expect(refusedCreate.stderr).toMatch(/^error: FORBIDDEN: /);
    expect(refusedAdmin.code).toBe(4);
    expect(refusedAdmin.stderr).toMatch(/^error: FORBIDDEN: /);
    expect(rows(bindingTable.stdout)).toContainEqual([made.bindingId, 'ci-reader', 'reader', 'default', '*', expect.stringMatching(/^\d+s$/)]);
    // Key metadata only, here and in the table: the key itself is never shown again.
    const keys = json(keyList).items;
    expect(keys).toEqual([expect.objectContaining({ name: 'ci', prefix: made.key.slice(0, 12), revokedAt: null })]);
    expect(keys[0]).not.toHaveProperty('key');
    made.firstKeyId = keys[0].id;
    expect(rows(keyTable.stdout)[0]).toEqual(['NAME', 'ID', 'PREFIX', 'STATE', 'EXPIRES']);
    expect(rows(keyTable.stdout)[1]!.slice(0, 4)).toEqual(['ci', made.firstKeyId, made.key.slice(0, 12), 'active']);
    for (const output of [keyList.stdout, keyTable.stdout, bindingTable.stdout]) expect(output).not.toContain(made.key);
    // The refused create left nothing behind.
    expect((await api('GET', secretsUrl())).body.data.items.map((s: any) => s.name)).toEqual(['probe']);
  });

  it('keys create shows the key once in the table or the whole data in json; a revoked key is refused', async () => {
    const [table, asJson] = await Promise.all([
      world.occ(['keys', 'create', '--principal', 'ci-reader', '--name', 'laptop']),
      world.occ(['keys', 'create', '--principal', 'ci-reader', '--name', 'ci-2', '--expires-in-days', '7', '-o', 'json']),
    ]);
    expect(table.code).toBe(0);
    const [header, row] = rows(table.stdout);
    expect(header).toEqual(['NAME', 'ID', 'EXPIRES', 'KEY']);
    expect(row![0]).toBe('laptop');
    expect(row![3]).toMatch(KEY);
    expect(table.stderr).toMatch(/not shown again/);
    const created = json(asJson);
    made.secondKey = created.key;
    expect(created).toMatchObject({ apiKey: { name: 'ci-2', principalId: made.principalId }, key: expect.stringMatching(KEY) });
    expect(Date.parse(created.apiKey.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const revoked = await world.occ(['keys', 'revoke', '--principal', 'ci-reader', 'ci']);
    expect(revoked).toMatchObject({ code: 0, stdout: '' });
    const [refused, stillValid, keyList] = await Promise.all([
      world.occ(['secrets', 'list', '-n', 'default'], { env: { OCC_API_KEY: made.key } }),
      world.occ(['secrets', 'list', '-n', 'default', '-o', 'json'], { env: { OCC_API_KEY: created.key } }),
      world.occ(['keys', 'list', '--principal', 'ci-reader', '-o', 'json']),
    ]);
    expect(refused.code).toBe(4);
    expect(stillValid.code).toBe(0);
    const states = Object.fromEntries(json(keyList).items.map((k: any) => [k.name, k.revokedAt === null]));
    expect(states).toEqual({ ci: false, laptop: true, 'ci-2': true });
  });

  it('audit lists the events the flow made, newest first, with names in the table', async () => {
    const [asJson, table, firstPage] = await Promise.all([
      world.occ(['audit', '-o', 'json', '--limit', '200']),
      world.occ(['audit']),
      world.occ(['audit', '--limit', '2', '--quiet']),
    ]);
    const events = json(asJson).items as any[];
    const actions = events.map((e) => e.action);
    for (const action of ['principals.create', 'roles.create', 'api_keys.create', 'access_bindings.create', 'api_keys.revoke']) expect(actions).toContain(action);
    expect(actions.indexOf('api_keys.revoke')).toBeLessThan(actions.indexOf('access_bindings.create'));
    expect(events.find((e) => e.action === 'access_bindings.create')).toMatchObject({
      outcome: 'success',
      namespaceId: world.controller.defaultNamespaceId,
      resource: { kind: 'access_binding', id: made.bindingId },
    });
    const [header, ...lines] = rows(table.stdout);
    expect(header).toEqual(['TIME', 'ACTOR', 'ACTION', 'OUTCOME', 'NAMESPACE', 'RESOURCE']);
    expect(lines).toContainEqual([expect.any(String), 'administrator', 'access_bindings.create', 'success', 'default', `access_binding/${made.bindingId}`]);
    // --quiet: one page of ids, newest first.
    expect(firstPage.stdout.trim().split('\n')).toEqual(events.slice(0, 2).map((e) => e.id));
  });

  it('errors: a missing resource exits 3, a bad body 2 with its JSON pointer, a missing scope 2', async () => {
    const [missing, missingByName, badRole, noScope, badResource] = await Promise.all([
      world.occ(['principals', 'get', 'prn_00000000-0000-4000-8000-000000000000']),
      world.occ(['roles', 'get', 'no-such-role']),
      world.occ(['roles', 'create', '-f', file('bad-role.json', JSON.stringify({ name: 'bad', permissions: [{ action: 'fly', resourceKind: 'secret' }] }))]),
      world.occ(['bindings', 'create', '--principal', 'ci-reader', '--role', 'reader']),
      world.occ(['bindings', 'create', '--principal', 'ci-reader', '--role', 'reader', '--resource', 'planet/earth']),
    ]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /);
    expect(missingByName.code).toBe(3);
    expect(missingByName.stderr).toContain('no-such-role');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/^error: INVALID_REQUEST: /);
    expect(badRole.stderr).toContain('/permissions/0/action');
    expect(noScope.code).toBe(2);
    expect(noScope.stderr).toMatch(/--installation, -n NAMESPACE, or --resource/);
    expect(badResource.code).toBe(2);
    for (const result of [missing, missingByName, badRole, noScope, badResource]) expect(result.stdout).toBe('');
    expect((await api('GET', '/iam/roles')).body.data.items.map((r: any) => r.name)).not.toContain('bad');
  });

  it('a restriction hides what the binding granted; deleting restriction, binding, role and principal leaves none behind', async () => {
    const [created, exact] = await Promise.all([
      world.occ(['restrictions', 'create', '-f', file('no-secrets.yaml', 'principal: ci-reader\naction: read\nresourceKind: secret\nnamespace: default\n'), '-o', 'json']),
      world.occ(['bindings', 'create', '--principal', 'ci-reader', '--role', made.roleId, '--resource', 'namespace/default', '--quiet']),
    ]);
    const restriction = json(created);
    const exactId = exact.stdout.trim();
    expect((await api('GET', `/iam/access-bindings/${exactId}`)).body.data).toMatchObject({
      roleId: made.roleId,
      resource: { kind: 'namespace', id: world.controller.defaultNamespaceId },
    });
    expect(restriction).toMatchObject({
      principalId: made.principalId,
      action: 'read',
      resourceKind: 'secret',
      namespaceId: world.controller.defaultNamespaceId,
      resourceId: null,
    });
    const [restricted, table] = await Promise.all([
      world.occ(['secrets', 'list', '-n', 'default', '-o', 'json'], { env: { OCC_API_KEY: made.secondKey } }),
      world.occ(['restrictions', 'list']),
    ]);
    // A list shows only what the caller may read: the restricted Secret is gone from it.
    expect(json(restricted).items).toEqual([]);
    expect(rows(table.stdout)).toContainEqual([restriction.id, 'ci-reader', 'read', 'secret', 'default', '*', expect.any(String)]);

    // The binding goes before the role it uses; the principal takes its keys along.
    for (const batch of [
      [
        ['restrictions', 'delete', restriction.id],
        ['bindings', 'delete', made.bindingId],
        ['bindings', 'delete', exactId],
      ],
      [
        ['roles', 'delete', 'reader'],
        ['principals', 'delete', 'ci-reader'],
      ],
    ]) {
      for (const deleted of await Promise.all(batch.map((args) => world.occ(args)))) expect(deleted, deleted.stderr).toMatchObject({ code: 0, stdout: '' });
    }
    const names = async (url: string, field: string) => (await api('GET', url)).body.data.items.map((item: any) => item[field]);
    expect(await names('/principals', 'name')).toEqual(['administrator']);
    expect(await names('/iam/roles', 'name')).toEqual(['installation-administrator']);
    expect(await names('/iam/access-bindings', 'principalId')).not.toContain(made.principalId);
    expect(await names('/iam/restrictions', 'id')).toEqual([]);
  });
});
