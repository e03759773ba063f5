import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, RESOURCE_KINDS } from '@occ/contracts';
import { loadMigrations } from '../../src/state/migrate.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

/**
 * agent:message is a new action. A fresh Installation's administrator role holds every pair
 * (bootstrap); migration 0009 gives an existing Installation's `installation-administrator` role
 * the new action's pairs, once, and leaves the operators' own roles alone.
 */
describe('migration 0009: the administrator role gains agent:message', () => {
  let t: TestController;
  const migration = loadMigrations().find((m) => m.version === 9)!;
  const permissionsOf = async (name: string) =>
    (await t.database.query<{ permissions: { action: string; resourceKind: string }[] }>('SELECT permissions FROM roles WHERE name = $1', [name])).rows[0]!.permissions;

  beforeAll(async () => {
    t = await startTestController({ authCacheMs: 0 });
  });
  afterAll(async () => t?.close());

  it("a fresh Installation's administrator holds every (action, kind) pair, message included", async () => {
    expect(migration.name).toBe('0009_agent_message_permission.sql');
    const held = await permissionsOf('installation-administrator');
    expect(held).toHaveLength(ACTIONS.length * RESOURCE_KINDS.length);
    expect(held).toContainEqual({ action: 'message', resourceKind: 'agent' });
  });

  it('an Installation from before it: the administrator role gains the pairs (once) and may message again; other roles are untouched', async () => {
    const before = await permissionsOf('installation-administrator');
    const older = before.filter((p) => p.action !== 'message');
    await t.database.query("UPDATE roles SET permissions = $1::jsonb WHERE name = 'installation-administrator'", [JSON.stringify(older)]);
    const own = uniqueName('readers');
    await adminCreate(t, '/iam/roles', { name: own, permissions: [{ action: 'read', resourceKind: 'agent' }] });
    const cfg = await adminCreate(t, `/namespaces/${t.defaultNamespaceId}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${t.defaultNamespaceId}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const message = () => t.request({ method: 'POST', url: `/namespaces/${t.defaultNamespaceId}/agents/${agent.id}/messages`, body: { text: 'hi' } });
    expect((await message()).status).toBe(403);

    await t.database.exec(migration.sql);
    const after = await permissionsOf('installation-administrator');
    expect(after).toEqual([...older, ...RESOURCE_KINDS.map((resourceKind) => ({ action: 'message', resourceKind }))]);
    await t.database.exec(migration.sql);
    expect(await permissionsOf('installation-administrator')).toEqual(after);
    expect(await permissionsOf(own)).toEqual([{ action: 'read', resourceKind: 'agent' }]);
    // Allowed again: the Agent is simply not running.
    expect((await message()).body.error.code).toBe('AGENT_NOT_RUNNING');
  });
});
