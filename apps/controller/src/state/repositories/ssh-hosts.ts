import type { SavedNamespaceSshHost } from '@occ/contracts';
import { OccError } from '../../core/errors.ts';
import type { SshHostRepository } from '../../core/ports/ssh-host-repository.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { iso } from './rows.ts';

interface Row {
  namespace_id: string;
  address: string;
  ssh_user: string;
  host_key: string;
  private_key_secret_id: string;
  updated_at: Date;
}

const COLUMNS = 'namespace_id, address, ssh_user, host_key, private_key_secret_id, updated_at';

const toHost = (r: Row): SavedNamespaceSshHost => ({
  namespaceId: r.namespace_id,
  address: r.address,
  user: r.ssh_user,
  hostKey: r.host_key,
  privateKeySecretId: r.private_key_secret_id,
  updatedAt: iso(r.updated_at),
});

/** The key Secret was deleted between the use case's check and this write. */
const secretGone = () => new OccError('NOT_FOUND', 'Secret not found.', [{ path: '/privateKeySecretId', code: 'INVALID_VALUE' }]);

export function sshHostRepository(q: Queryable): SshHostRepository {
  const run = runner(q);
  return {
    async get(namespaceId) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM namespace_ssh_hosts WHERE namespace_id = $1`, [namespaceId]);
      return rows[0] ? toHost(rows[0]) : null;
    },
    async put(host) {
      const { rows } = await run<Row>(
        `INSERT INTO namespace_ssh_hosts (namespace_id, address, ssh_user, host_key, private_key_secret_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (namespace_id) DO UPDATE SET address = EXCLUDED.address, ssh_user = EXCLUDED.ssh_user, host_key = EXCLUDED.host_key,
           private_key_secret_id = EXCLUDED.private_key_secret_id, updated_at = now()
         RETURNING ${COLUMNS}`,
        [host.namespaceId, host.address, host.user, host.hostKey, host.privateKeySecretId],
        { namespace: true, foreignKeys: { namespace_ssh_hosts_private_key_secret_fkey: secretGone } },
      );
      return toHost(rows[0]!);
    },
    async delete(namespaceId) {
      const { rows } = await run<Row>(`DELETE FROM namespace_ssh_hosts WHERE namespace_id = $1 RETURNING ${COLUMNS}`, [namespaceId]);
      return rows[0] ? toHost(rows[0]) : null;
    },
    async agentsOnHost(namespaceId, limit) {
      // The CTE reads (and share-locks) every Agent row of the Namespace: the UNION needs them all.
      const { rows } = await run<{ id: string }>(
        `WITH namespace_agents AS MATERIALIZED (
           SELECT id, desired_state, active_revision_id FROM agents WHERE namespace_id = $1 FOR SHARE
         )
         SELECT id FROM (
           SELECT id FROM namespace_agents WHERE desired_state = 'running' OR active_revision_id IS NOT NULL
           UNION SELECT agent_id FROM work_items WHERE namespace_id = $1 AND kind = 'remove_agent' AND state IN ('queued', 'claimed')
         ) r ORDER BY id COLLATE "C" LIMIT $2`,
        [namespaceId, limit],
      );
      return rows.map((r) => r.id);
    },
  };
}
