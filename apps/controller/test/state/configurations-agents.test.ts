import { describe, expect, it } from 'vitest';
import type { Approver, PluginMap } from '@occ/contracts';
import { newId } from '../../src/core/ids.ts';
import { ISO, agent, configuration, expectOccError, namespace, secret, sqlStateOf, unique, useStateStore } from './fixtures.ts';

const f = useStateStore();

describe('ConfigurationRepository', () => {
  it('stores values and secret bindings and reads them back together', async () => {
    const { ns, s, cfg } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const s = await secret(uow, ns.id);
      return { ns, s, cfg: await configuration(uow, ns.id, { OPENAI_API_KEY: { secretId: s.id } }, 'main') };
    });
    expect(cfg).toEqual({
      id: expect.stringMatching(/^cfg_/),
      namespaceId: ns.id,
      name: 'main',
      generation: 1,
      values: { agents: { defaults: { model: 'x' } } },
      secretBindings: { OPENAI_API_KEY: { secretId: s.id } },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await f.store.read((uow) => uow.configurations.get(ns.id, cfg.id))).toEqual(cfg);
    expect(await f.store.read((uow) => uow.configurations.scan(ns.id, { limit: 5 }))).toEqual([cfg]);
    expect(await f.store.read((uow) => uow.configurations.get(newId('namespace'), cfg.id))).toBeNull();
  });

  it('update writes the whole state, replaces the bindings and bumps the generation', async () => {
    const { ns, a, b, cfg } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const a = await secret(uow, ns.id);
      const b = await secret(uow, ns.id);
      return { ns, a, b, cfg: await configuration(uow, ns.id, { A: { secretId: a.id }, B: { secretId: a.id } }) };
    });
    const updated = await f.store.transact(async (uow) => {
      const locked = await uow.configurations.getForUpdate(ns.id, cfg.id);
      expect(locked).toEqual(cfg);
      return uow.configurations.update(ns.id, cfg.id, { name: 'renamed', values: { gateway: { port: 1 } }, secretBindings: { B: { secretId: b.id }, C: { secretId: a.id } } });
    });
    expect(updated).toMatchObject({ name: 'renamed', generation: 2, values: { gateway: { port: 1 } }, secretBindings: { B: { secretId: b.id }, C: { secretId: a.id } } });
    expect(await f.store.read((uow) => uow.configurations.get(ns.id, cfg.id))).toEqual(updated);
    const cleared = await f.store.transact((uow) => uow.configurations.update(ns.id, cfg.id, { name: 'renamed', values: {}, secretBindings: {} }));
    expect(cleared).toMatchObject({ generation: 3, values: {}, secretBindings: {} });
    expect(await f.store.read((uow) => uow.configurations.get(ns.id, cfg.id))).toEqual(cleared);
    await expectOccError(
      f.store.transact((uow) => uow.configurations.update(ns.id, newId('configuration'), { name: 'x', values: {}, secretBindings: {} })),
      'NOT_FOUND',
    );
  });

  it('refuses duplicate names on insert and on update, and a missing Namespace', async () => {
    const ns = await f.store.transact((uow) => namespace(uow));
    const [one] = await f.store.transact(async (uow) => [await configuration(uow, ns.id, {}, 'one'), await configuration(uow, ns.id, {}, 'two')]);
    const e1 = await expectOccError(
      f.store.transact((uow) => configuration(uow, ns.id, {}, 'two')),
      'RESOURCE_CONFLICT',
    );
    expect(e1.message).toBe('A Configuration with this name already exists.');
    await expectOccError(
      f.store.transact((uow) => uow.configurations.update(ns.id, one!.id, { name: 'two', values: {}, secretBindings: {} })),
      'RESOURCE_CONFLICT',
    );
    await expectOccError(
      f.store.transact((uow) => configuration(uow, newId('namespace'))),
      'NOT_FOUND',
    );
  });

  it('rejects a binding to a Secret of another Namespace (composite foreign key)', async () => {
    const [a, b] = await f.store.transact(async (uow) => [await namespace(uow), await namespace(uow)]);
    const foreign = await f.store.transact((uow) => secret(uow, b!.id));
    expect(await sqlStateOf(f.store.transact((uow) => configuration(uow, a!.id, { X: { secretId: foreign.id } })))).toBe('23503');
    expect(await f.store.read((uow) => uow.configurations.scan(a!.id, { limit: 5 }))).toEqual([]);
  });

  it('reports referring Agents and refuses to delete while referred to; delete drops the bindings', async () => {
    const { ns, s, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const s = await secret(uow, ns.id);
      const cfg = await configuration(uow, ns.id, { K: { secretId: s.id } });
      return { ns, s, cfg, agt: await agent(uow, ns.id, cfg.id) };
    });
    expect(await f.store.read((uow) => uow.configurations.referrers(ns.id, cfg.id, 5))).toEqual([{ kind: 'agents', id: agt.id }]);
    await expectOccError(
      f.store.transact((uow) => uow.configurations.delete(ns.id, cfg.id)),
      'RESOURCE_CONFLICT',
    );
    await f.store.transact((uow) => uow.agents.delete(ns.id, agt.id));
    expect(await f.store.transact((uow) => uow.configurations.delete(ns.id, cfg.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.configurations.delete(ns.id, cfg.id))).toBe(false);
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, s.id, 5))).toEqual([]);
  });
});

describe('AgentRepository', () => {
  const plugins: PluginMap = { 'github@openai-curated': { enabled: true, toolDefaults: { approval: 'write_actions' }, tools: { search: { enabled: false } } } };
  const approvers: Approver[] = [{ channel: 'slack', id: 'U123' }];

  it('stores harness auth, plugins and approvers and maps them back', async () => {
    const { ns, s, cfg } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      return { ns, s: await secret(uow, ns.id), cfg: await configuration(uow, ns.id) };
    });
    const created = await f.store.transact(async (uow) => {
      const id = newId('agent');
      const p = await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'service', name: `agent:${id}`, namespaceId: ns.id, agentId: id });
      return uow.agents.insert({
        id,
        namespaceId: ns.id,
        name: 'bot',
        harness: 'codex',
        servicePrincipalId: p.id,
        configurationId: cfg.id,
        harnessAuth: { method: 'codex_pat', secretId: s.id },
        plugins,
        pluginApprovers: approvers,
      });
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^agt_/),
      namespaceId: ns.id,
      name: 'bot',
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: s.id },
      plugins,
      pluginApprovers: approvers,
      servicePrincipalId: expect.stringMatching(/^prn_/),
      desiredState: 'stopped',
      activeRevisionId: null,
      version: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await f.store.read((uow) => uow.agents.get(ns.id, created.id))).toEqual(created);
    expect(await f.store.read((uow) => uow.agents.scan(ns.id, { limit: 5 }))).toEqual([created]);
  });

  it('distinguishes no approvers (null) from nobody ([]) and bumps the version on update', async () => {
    const { ns, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const cfg = await configuration(uow, ns.id);
      return { ns, cfg, agt: await agent(uow, ns.id, cfg.id) };
    });
    expect(agt).toMatchObject({ harnessAuth: null, plugins: {}, pluginApprovers: null, version: 1 });
    const updated = await f.store.transact(async (uow) => {
      expect(await uow.agents.getForUpdate(ns.id, agt.id)).toEqual(agt);
      return uow.agents.update(ns.id, agt.id, { name: 'renamed', configurationId: cfg.id, harnessAuth: null, plugins, pluginApprovers: [] });
    });
    expect(updated).toMatchObject({ name: 'renamed', plugins, pluginApprovers: [], version: 2, createdAt: agt.createdAt });
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(updated);
    await expectOccError(
      f.store.transact((uow) => uow.agents.update(ns.id, newId('agent'), { ...updated, harnessAuth: null })),
      'NOT_FOUND',
    );
  });

  it('refuses a duplicate name and a missing Namespace; delete reports whether a row went', async () => {
    const { ns, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const cfg = await configuration(uow, ns.id);
      return { ns, cfg, agt: await agent(uow, ns.id, cfg.id, { name: 'taken' }) };
    });
    const error = await expectOccError(
      f.store.transact((uow) => agent(uow, ns.id, cfg.id, { name: 'taken' })),
      'RESOURCE_CONFLICT',
    );
    expect(error.message).toBe('An Agent with this name already exists.');
    expect(await f.store.transact((uow) => uow.agents.delete(ns.id, agt.id))).toBe(true);
    expect(await f.store.transact((uow) => uow.agents.delete(ns.id, agt.id))).toBe(false);
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toBeNull();
  });

  it('PostgreSQL itself rejects an Agent whose Configuration or harness-auth Secret lies in another Namespace', async () => {
    const { a, b, cfgB, secB, cfgA } = await f.store.transact(async (uow) => {
      const a = await namespace(uow);
      const b = await namespace(uow);
      return { a, b, cfgA: await configuration(uow, a.id), cfgB: await configuration(uow, b.id), secB: await secret(uow, b.id) };
    });
    const principal = await f.store.transact((uow) => uow.iam.insertPrincipal({ id: newId('principal'), kind: 'service', name: unique('p') }));
    const insert = (configurationId: string, secretId: string | null) =>
      f.db.query(
        `INSERT INTO agents (id, namespace_id, name, configuration_id, harness, harness_auth_method, harness_auth_secret_id, service_principal_id)
         VALUES ($1, $2, $3, $4, 'codex', $5, $6, $7)`,
        [newId('agent'), a.id, unique('raw'), configurationId, secretId ? 'codex_pat' : null, secretId, principal.id],
      );
    expect(await sqlStateOf(insert(cfgB.id, null))).toBe('23503');
    expect(await sqlStateOf(insert(cfgA.id, secB.id))).toBe('23503');
    expect(await sqlStateOf(f.store.transact((uow) => agent(uow, a.id, cfgA.id, { secretId: secB.id })))).toBe('23503');
    expect(await f.store.read((uow) => uow.agents.scan(a.id, { limit: 5 }))).toEqual([]);
    expect(b.id).not.toBe(a.id);
  });
});

describe('StateStore.transact', () => {
  it('[V-7] keeps neither the Agent change nor its audit event when any write of the transaction fails', async () => {
    const { ns, cfg, agt } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const cfg = await configuration(uow, ns.id);
      return { ns, cfg, agt: await agent(uow, ns.id, cfg.id) };
    });
    const auditId = newId('audit_event');
    const event = {
      id: auditId,
      actorId: null,
      action: 'agents.update',
      outcome: 'success' as const,
      namespaceId: ns.id,
      resource: { kind: 'agent', id: agt.id },
      requestId: null,
      details: {},
    };
    await f.store.transact((uow) => uow.audit.append(event));
    const failed = f.store.transact(async (uow) => {
      await uow.agents.update(ns.id, agt.id, { name: 'changed', configurationId: cfg.id, harnessAuth: null, plugins: {}, pluginApprovers: [] });
      await uow.audit.append({ ...event, id: newId('audit_event') });
      await uow.audit.append(event); // duplicate audit id: the last write fails
    });
    await expect(failed).rejects.toBeDefined();
    expect(await f.store.read((uow) => uow.agents.get(ns.id, agt.id))).toEqual(agt);
    expect(await f.store.read((uow) => uow.configurations.get(ns.id, cfg.id))).toEqual(cfg);
    const events = await f.store.read((uow) => uow.audit.scan({ limit: 50 }));
    expect(events.filter((e) => e.resource?.id === agt.id)).toHaveLength(1);
  });
});
