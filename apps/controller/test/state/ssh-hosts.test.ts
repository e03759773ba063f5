import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import { agent, configuration, expectOccError, ISO, namespace, secret, useStateStore } from './fixtures.ts';

/** Migration 0011 and the SshHostRepository, on both engines (the HTTP side: test/http/namespace-ssh-hosts.test.ts). */
describe('state: a Namespace’s SSH host', () => {
  const f = useStateStore();
  const hostOf = (namespaceId: string, privateKeySecretId: string, address = 'agents.example.test') => ({
    namespaceId,
    address,
    user: 'occ-agents',
    hostKey: `SHA256:${'A'.repeat(43)}`,
    privateKeySecretId,
  });

  it('puts (creates, then replaces in place), gets and deletes one host per Namespace', async () => {
    const { ns, sec } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      return { ns, sec: await secret(uow, ns.id) };
    });
    expect(await f.store.read((uow) => uow.sshHosts.get(ns.id))).toBeNull();
    const first = await f.store.transact((uow) => uow.sshHosts.put(hostOf(ns.id, sec.id)));
    expect(first).toEqual({ ...hostOf(ns.id, sec.id), updatedAt: expect.stringMatching(ISO) });
    const second = await f.store.transact((uow) => uow.sshHosts.put(hostOf(ns.id, sec.id, '[::1]:2222')));
    expect(second.address).toBe('[::1]:2222');
    expect(await f.store.read((uow) => uow.sshHosts.get(ns.id))).toEqual(second);
    expect((await f.db.query('SELECT count(*)::int AS n FROM namespace_ssh_hosts WHERE namespace_id = $1', [ns.id])).rows[0]).toEqual({ n: 1 });
    expect(await f.store.transact((uow) => uow.sshHosts.delete(ns.id))).toEqual(second);
    expect(await f.store.transact((uow) => uow.sshHosts.delete(ns.id))).toBeNull();
    expect(await f.store.read((uow) => uow.sshHosts.get(ns.id))).toBeNull();
  });

  it('the key Secret must be of the same Namespace and exist (the foreign key: 404 at /privateKeySecretId); an unknown Namespace is 404', async () => {
    const { a, b, secB } = await f.store.transact(async (uow) => {
      const a = await namespace(uow);
      const b = await namespace(uow);
      return { a, b, secB: await secret(uow, b.id) };
    });
    const foreign = await expectOccError(
      f.store.transact((uow) => uow.sshHosts.put(hostOf(a.id, secB.id))),
      'NOT_FOUND',
    );
    expect(foreign.details).toEqual([{ path: '/privateKeySecretId', code: 'INVALID_VALUE' }]);
    await expectOccError(
      f.store.transact((uow) => uow.sshHosts.put(hostOf(a.id, newId('secret')))),
      'NOT_FOUND',
    );
    await expectOccError(
      f.store.transact((uow) => uow.sshHosts.put(hostOf(newId('namespace'), secB.id))),
      'NOT_FOUND',
    );
    expect(await f.store.read((uow) => uow.sshHosts.get(a.id))).toBeNull();
    expect(b.id).toMatch(/^ns_/);
  });

  it('a Secret in use as a host key is a referrer (`ssh-host`, the Namespace) and its delete is refused with 409, never a database error', async () => {
    const { ns, sec, spare } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      return { ns, sec: await secret(uow, ns.id), spare: await secret(uow, ns.id) };
    });
    await f.store.transact((uow) => uow.sshHosts.put(hostOf(ns.id, sec.id)));
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, sec.id, 32))).toEqual([{ kind: 'ssh-host', id: ns.id }]);
    expect(await f.store.read((uow) => uow.secrets.referrers(ns.id, spare.id, 32))).toEqual([]);
    await expectOccError(
      f.store.transact((uow) => uow.secrets.delete(ns.id, sec.id)),
      'RESOURCE_CONFLICT',
    );
    // Moved to the other key: the first one is free again.
    await f.store.transact((uow) => uow.sshHosts.put(hostOf(ns.id, spare.id)));
    expect(await f.store.transact((uow) => uow.secrets.delete(ns.id, sec.id))).toBe(true);
  });

  it('agentsOnHost names the Agents that want to run or have an active revision, and deleted ones whose removal is queued', async () => {
    const { ns, running, stopped, removed } = await f.store.transact(async (uow) => {
      const ns = await namespace(uow);
      const cfg = await configuration(uow, ns.id);
      return { ns, running: await agent(uow, ns.id, cfg.id), stopped: await agent(uow, ns.id, cfg.id), removed: newId('agent') };
    });
    const onHost = () => f.store.transact((uow) => uow.sshHosts.agentsOnHost(ns.id, 32));
    expect(await onHost()).toEqual([]);
    await f.store.transact((uow) => uow.agents.setDesiredState(ns.id, running.id, 'running'));
    expect(await onHost()).toEqual([running.id]);
    await f.store.transact((uow) =>
      uow.work.enqueue({
        key: `agent:${removed}:remove`,
        kind: 'remove_agent',
        lane: removed,
        namespaceId: ns.id,
        agentId: removed,
        actorId: 'prn_test',
        maxAttempts: 3,
        deadlineAt: new Date(Date.now() + 60_000),
      }),
    );
    expect((await onHost()).sort()).toEqual([running.id, removed].sort());
    expect(await f.store.transact((uow) => uow.sshHosts.agentsOnHost(ns.id, 1))).toHaveLength(1);
    expect(stopped.desiredState).toBe('stopped');
  });
});
