import type { SecretRecord, SecretRepository } from '../../core/ports/secret-repository.ts';
import { conflict } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { BY_ID, afterId, iso } from './rows.ts';

interface Row {
  id: string;
  namespace_id: string;
  name: string;
  driver_id: string;
  sealed_value: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, namespace_id, name, driver_id, sealed_value, version, created_at, updated_at';

const toRecord = (r: Row): SecretRecord => ({
  id: r.id,
  namespaceId: r.namespace_id,
  name: r.name,
  version: r.version,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  driverId: r.driver_id,
  sealedValue: r.sealed_value,
});

const stillReferred = () => conflict('The Secret is still referred to.');

export function secretRepository(q: Queryable): SecretRepository {
  const run = runner(q);
  return {
    async insert(s) {
      const { rows } = await run<Row>(
        `INSERT INTO secrets (id, namespace_id, name, driver_id, sealed_value) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [s.id, s.namespaceId, s.name, s.driverId, s.sealedValue],
        { name: 'Secret', namespace: true },
      );
      return toRecord(rows[0]!);
    },
    async get(namespaceId, id) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM secrets WHERE namespace_id = $1 AND id = $2`, [namespaceId, id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async namespaceOf(id) {
      const { rows } = await run<{ namespace_id: string }>('SELECT namespace_id FROM secrets WHERE id = $1', [id]);
      return rows[0]?.namespace_id ?? null;
    },
    async scan(namespaceId, page) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM secrets WHERE namespace_id = $1 AND ${afterId(2)} ${BY_ID} LIMIT $3`, [namespaceId, page.after ?? null, page.limit]);
      return rows.map(toRecord);
    },
    async rotate(namespaceId, id, sealedValue) {
      const { rows } = await run<Row>(
        `UPDATE secrets SET sealed_value = $3, version = version + 1, updated_at = now()
         WHERE namespace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [namespaceId, id, sealedValue],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async referrers(namespaceId, id, limit) {
      const { rows } = await run<{ kind: string; id: string }>(
        `SELECT kind, id FROM (
           SELECT 'agents' AS kind, id FROM agents WHERE namespace_id = $1 AND harness_auth_secret_id = $2
           UNION SELECT 'configurations', configuration_id FROM configuration_secret_bindings WHERE namespace_id = $1 AND secret_id = $2
           UNION SELECT 'ssh-host', namespace_id FROM namespace_ssh_hosts WHERE namespace_id = $1 AND private_key_secret_id = $2
           UNION SELECT 'sign-in-provider', 'installation' FROM sign_in_provider WHERE client_secret_namespace_id = $1 AND client_secret_id = $2
         ) r ORDER BY kind, id COLLATE "C" LIMIT $3`,
        [namespaceId, id, limit],
      );
      return rows.map((r) => ({ kind: r.kind, id: r.id }));
    },
    async delete(namespaceId, id) {
      const { rowCount } = await run('DELETE FROM secrets WHERE namespace_id = $1 AND id = $2', [namespaceId, id], { referenced: stillReferred });
      return rowCount > 0;
    },
  };
}
