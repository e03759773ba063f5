import { describe, expect, it } from 'vitest';
import type { PluginMap } from '@occ/contracts';
import type { AuditEventWrite } from '../../src/core/ports/audit-repository.ts';
import { newId } from '../../src/core/ids.ts';
import { agent, configuration, expectOccError, namespace, unique, useStateStore } from './fixtures.ts';

const f = useStateStore();

async function world() {
  return f.store.transact(async (uow) => {
    const ns = await namespace(uow);
    const cfg = await configuration(uow, ns.id);
    return { ns, cfg, agt: await agent(uow, ns.id, cfg.id) };
  });
}

const event = (namespaceId: string, agentId: string, details: Record<string, unknown> = { version: 2 }): AuditEventWrite => ({
  id: newId('audit_event'),
  actorId: 'prn_actor',
  action: 'agents.update',
  outcome: 'success',
  namespaceId,
  resource: { kind: 'agent', id: agentId },
  requestId: 'req_1',
  details,
});

const auditRows = async (agentId: string) =>
  (
    await f.db.query<{ id: string; actor_id: string; action: string; request_id: string; details: unknown }>(
      'SELECT id, actor_id, action, request_id, details FROM audit_events WHERE resource_id = $1 ORDER BY seq',
      [agentId],
    )
  ).rows;

describe('AgentRepository.updateAtVersion (one statement: version check, change, audit event)', () => {
  it('[V-7] at the current version writes the desired state, bumps the version and appends exactly its audit event', async () => {
    const { ns, cfg, agt } = await world();
    const audit = event(ns.id, agt.id, { name: 'renamed', version: 2 });
    const updated = await f.store.autocommit((uow) =>
      uow.agents.updateAtVersion(ns.id, agt.id, 1, { name: 'renamed', configurationId: cfg.id, harnessAuth: null, plugins: {}, pluginApprovers: [] }, audit),
    );
    expect(updated).toMatchObject({ id: agt.id, name: 'renamed', pluginApprovers: [], version: 2, createdAt: agt.createdAt });
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(updated);
    expect(await auditRows(agt.id)).toEqual([{ id: audit.id, actor_id: 'prn_actor', action: 'agents.update', request_id: 'req_1', details: { name: 'renamed', version: 2 } }]);
  });

  it('at a stale version, or for a missing Agent, writes neither the change nor the audit event', async () => {
    const { ns, cfg, agt } = await world();
    const write = { name: 'stale', configurationId: cfg.id, harnessAuth: null, plugins: {}, pluginApprovers: null };
    expect(await f.store.autocommit((uow) => uow.agents.updateAtVersion(ns.id, agt.id, 2, write, event(ns.id, agt.id)))).toBeNull();
    expect(await f.store.autocommit((uow) => uow.agents.updateAtVersion(ns.id, newId('agent'), 1, write, event(ns.id, agt.id)))).toBeNull();
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(agt);
    expect(await auditRows(agt.id)).toEqual([]);
  });

  it('[V-7] a failing audit insert keeps the change out too, and a duplicate name is a conflict with no audit event', async () => {
    const { ns, cfg, agt } = await world();
    const taken = await f.store.transact((uow) => agent(uow, ns.id, cfg.id, { name: unique('taken') }));
    const used = event(ns.id, taken.id);
    await f.store.transact((uow) => uow.audit.append(used));
    const write = { name: 'changed', configurationId: cfg.id, harnessAuth: null, plugins: {}, pluginApprovers: null };
    // The audit id is already stored: the INSERT of the same statement fails, so the UPDATE is undone.
    await expect(f.store.autocommit((uow) => uow.agents.updateAtVersion(ns.id, agt.id, 1, write, { ...used, resource: { kind: 'agent', id: agt.id } }))).rejects.toBeDefined();
    await expectOccError(
      f.store.autocommit((uow) => uow.agents.updateAtVersion(ns.id, agt.id, 1, { ...write, name: taken.name }, event(ns.id, agt.id))),
      'RESOURCE_CONFLICT',
    );
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(agt);
    expect(await auditRows(agt.id)).toEqual([]);
  });
});

describe('AgentRepository.renameInPlace (one statement, no read: If-Match, rename, audit event completed from the row)', () => {
  // Keys in an order JavaScript's sort and a collation-aware ORDER BY would disagree on.
  const plugins = { 'zeta-tools': { enabled: true }, '@openclaw/nostr': { enabled: false }, Alpha: { enabled: true }, _under: { enabled: true } } as unknown as PluginMap;

  async function pluggedWorld() {
    const w = await world();
    const agt = await f.store.transact((uow) =>
      uow.agents.update(w.ns.id, w.agt.id, { name: w.agt.name, configurationId: w.cfg.id, harnessAuth: null, plugins, pluginApprovers: null }),
    );
    return { ...w, agt };
  }

  it('[V-7] renames and rebinds, keeps every other field, bumps the version, and its audit event carries the full summary (sorted as the use case sorts)', async () => {
    const { ns, agt } = await pluggedWorld();
    const other = await f.store.transact((uow) => configuration(uow, ns.id));
    const audit = event(ns.id, agt.id, { name: 'renamed', changed: ['configurationId', 'name'] });
    const renamed = await f.store.autocommit((uow) => uow.agents.renameInPlace(ns.id, agt.id, { name: 'renamed', configurationId: other.id }, undefined, audit));
    expect(renamed).toEqual({ ...agt, name: 'renamed', configurationId: other.id, version: agt.version + 1, updatedAt: renamed!.updatedAt });
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(renamed);
    expect(await auditRows(agt.id)).toEqual([
      {
        id: audit.id,
        actor_id: 'prn_actor',
        action: 'agents.update',
        request_id: 'req_1',
        details: {
          name: 'renamed',
          configurationId: other.id,
          harnessAuthSecretId: null,
          pluginIds: Object.keys(plugins).sort(),
          version: agt.version + 1,
          changed: ['configurationId', 'name'],
        },
      },
    ]);
  });

  it("without a rebind keeps the configuration; the caller's details win over the row's", async () => {
    const { ns, cfg, agt } = await pluggedWorld();
    const audit = event(ns.id, agt.id, { name: '[redacted]', changed: ['name'] });
    const renamed = await f.store.autocommit((uow) => uow.agents.renameInPlace(ns.id, agt.id, { name: 'sk-livesecretvalue123' }, agt.version, audit));
    expect(renamed).toMatchObject({ name: 'sk-livesecretvalue123', configurationId: cfg.id, version: agt.version + 1 });
    expect((await auditRows(agt.id))[0]!.details).toMatchObject({ name: '[redacted]', configurationId: cfg.id });
  });

  it('at a stale If-Match version, or for a missing Agent, writes neither the rename nor the audit event', async () => {
    const { ns, agt } = await pluggedWorld();
    expect(await f.store.autocommit((uow) => uow.agents.renameInPlace(ns.id, agt.id, { name: 'stale' }, agt.version + 1, event(ns.id, agt.id)))).toBeNull();
    expect(await f.store.autocommit((uow) => uow.agents.renameInPlace(ns.id, newId('agent'), { name: 'gone' }, undefined, event(ns.id, agt.id)))).toBeNull();
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(agt);
    expect(await auditRows(agt.id)).toEqual([]);
  });

  it('a duplicate name is a conflict that writes no audit event', async () => {
    const { ns, cfg, agt } = await pluggedWorld();
    const taken = await f.store.transact((uow) => agent(uow, ns.id, cfg.id, { name: unique('taken') }));
    await expectOccError(
      f.store.autocommit((uow) => uow.agents.renameInPlace(ns.id, agt.id, { name: taken.name }, undefined, event(ns.id, agt.id))),
      'RESOURCE_CONFLICT',
    );
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(agt);
    expect(await auditRows(agt.id)).toEqual([]);
  });
});
