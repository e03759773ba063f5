import type { Namespace } from '@occ/contracts';
import type { NamespaceRepository } from '../../core/ports/namespace-repository.ts';
import { OccError } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { BY_ID, afterId, iso } from './rows.ts';

interface Row {
  id: string;
  name: string;
  created_at: Date;
}

const COLUMNS = 'id, name, created_at';
const toNamespace = (r: Row): Namespace => ({ id: r.id, name: r.name, createdAt: iso(r.created_at) });
const notEmpty = () => new OccError('NAMESPACE_NOT_EMPTY', 'The Namespace still holds resources; delete them first.');

export function namespaceRepository(q: Queryable): NamespaceRepository {
  const run = runner(q);
  return {
    async insert(ns) {
      const { rows } = await run<Row>(`INSERT INTO namespaces (id, name) VALUES ($1, $2) RETURNING ${COLUMNS}`, [ns.id, ns.name], { name: 'Namespace' });
      return toNamespace(rows[0]!);
    },
    async get(id) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM namespaces WHERE id = $1`, [id]);
      return rows[0] ? toNamespace(rows[0]) : null;
    },
    async scan(page) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM namespaces WHERE ${afterId(1)} ${BY_ID} LIMIT $2`, [page.after ?? null, page.limit]);
      return rows.map(toNamespace);
    },
    async remaining(id, limit) {
      // Plural kinds: callers turn them into JSON pointers such as /agents/agt_….
      const { rows } = await run<{ kind: string; id: string }>(
        `SELECT kind, id FROM (
           SELECT 'agents' AS kind, id FROM agents WHERE namespace_id = $1
           UNION ALL SELECT 'configurations', id FROM configurations WHERE namespace_id = $1
           UNION ALL SELECT 'secrets', id FROM secrets WHERE namespace_id = $1
         ) r ORDER BY kind, id COLLATE "C" LIMIT $2`,
        [id, limit],
      );
      return rows.map((r) => ({ kind: r.kind, id: r.id }));
    },
    async delete(id) {
      const { rowCount } = await run('DELETE FROM namespaces WHERE id = $1', [id], { referenced: notEmpty });
      return rowCount > 0;
    },
  };
}
