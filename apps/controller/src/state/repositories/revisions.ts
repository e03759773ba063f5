import type { AgentRevision } from '@occ/contracts';
import type { RevisionRepository } from '../../core/ports/revision-repository.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { runningActiveRevisions } from '../running-active-revisions.ts';
import { iso, jsonb } from './rows.ts';

type Spec = Omit<AgentRevision, 'id' | 'namespaceId' | 'agentId' | 'revision' | 'actorId' | 'createdAt'>;

interface Row {
  id: string;
  namespace_id: string;
  agent_id: string;
  revision_number: number;
  spec: Spec;
  actor_id: string;
  created_at: Date;
}

const COLUMNS = 'id, namespace_id, agent_id, revision_number, spec, actor_id, created_at';

const toRevision = (r: Row): AgentRevision => ({
  id: r.id,
  namespaceId: r.namespace_id,
  agentId: r.agent_id,
  revision: r.revision_number,
  ...r.spec,
  actorId: r.actor_id,
  createdAt: iso(r.created_at),
});

export function revisionRepository(q: Queryable): RevisionRepository {
  const run = runner(q);
  return {
    async insert(rev) {
      const { id, namespaceId, agentId, revision, actorId, createdAt: _createdAt, ...spec } = rev;
      const { rows } = await run<Row>(
        `INSERT INTO agent_revisions (id, namespace_id, agent_id, revision_number, spec, actor_id)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6) RETURNING ${COLUMNS}`,
        [id, namespaceId, agentId, revision, jsonb(spec), actorId],
      );
      return toRevision(rows[0]!);
    },
    async get(namespaceId, agentId, id) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM agent_revisions WHERE namespace_id = $1 AND agent_id = $2 AND id = $3`, [namespaceId, agentId, id]);
      return rows[0] ? toRevision(rows[0]) : null;
    },
    async scan(namespaceId, agentId, page) {
      const { rows } = await run<Row>(
        `SELECT ${COLUMNS} FROM agent_revisions WHERE namespace_id = $1 AND agent_id = $2
           AND ($3::int IS NULL OR revision_number < $3::int) ORDER BY revision_number DESC LIMIT $4`,
        [namespaceId, agentId, page.after === undefined ? null : Number.parseInt(page.after, 10) || 0, page.limit],
      );
      return rows.map(toRevision);
    },
    async latestNumber(agentId) {
      const { rows } = await run<{ n: number | null }>('SELECT max(revision_number)::int AS n FROM agent_revisions WHERE agent_id = $1', [agentId]);
      return rows[0]?.n ?? 0;
    },
    async retirable(agentId, keepId) {
      const { rows } = await run<{ id: string; revision_number: number }>(
        `SELECT r.id, r.revision_number FROM agent_revisions r
          WHERE r.agent_id = $1 AND r.id IS DISTINCT FROM $2
            AND NOT EXISTS (SELECT 1 FROM revision_retirements x WHERE x.revision_id = r.id)
            AND EXISTS (SELECT 1 FROM work_items w WHERE w.revision_id = r.id AND w.last_attempt_at IS NOT NULL)
          ORDER BY r.revision_number`,
        [agentId, keepId],
      );
      return rows.map((r) => ({ id: r.id, revision: r.revision_number }));
    },
    async markRetired(agentId, id) {
      await run(
        `INSERT INTO revision_retirements (revision_id) SELECT id FROM agent_revisions WHERE agent_id = $1 AND id = $2
         ON CONFLICT (revision_id) DO NOTHING`,
        [agentId, id],
      );
    },
    async activeOnCompute(computeDriverId) {
      const { rows } = await run<{ namespace_id: string; agent_id: string; id: string }>(
        `SELECT r.namespace_id, r.agent_id, r.id FROM ${runningActiveRevisions(1)} ORDER BY r.agent_id`,
        [computeDriverId],
      );
      return rows.map((r) => ({ namespaceId: r.namespace_id, agentId: r.agent_id, revisionId: r.id }));
    },
    async deleteForAgent(agentId) {
      const { rowCount } = await run('DELETE FROM agent_revisions WHERE agent_id = $1', [agentId]);
      return rowCount;
    },
  };
}
