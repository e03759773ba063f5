import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { runningActiveRevisions } from '../running-active-revisions.ts';
import { notifyWork } from './wake.ts';

/**
 * One `ensure_active` item per running Agent whose active revision is on `computeDriverId` and
 * whose lane is idle (nothing queued, nothing claimed): inserted the first time, armed again once
 * the last one finished (key `agent:<id>:ensure-active`, so an Agent holds one such row, never a
 * history). No revision: the check reads the Agent's pointer when it runs, and the queries that find
 * a revision's work (a deployment's status, what may be retired) never meet it. An idle lane only:
 * a deploy, stop or removal under way owns what runs until it ends.
 * Concurrent armers meet on the key: at most one item per Agent is ever open. Each is due at a
 * random moment of the next `spreadMs`, so a thousand Agents' checks are not a thousand target
 * calls at once (and requested work is claimed before any of them: claim.ts). Returns how many
 * were armed (and announces them).
 */
export async function armEnsureActive(q: Queryable, computeDriverId: string, actorId: string, spreadMs: number, deadlineMs: number): Promise<number> {
  const { rows } = await runner(q)<{ idempotency_key: string }>(
    `INSERT INTO work_items (idempotency_key, id, kind, lane, namespace_id, agent_id, revision_id, actor_id,
       max_attempts, deadline_at, available_at)
     SELECT 'agent:' || a.id || ':ensure-active', 'wrk_' || gen_random_uuid()::text, 'ensure_active', a.id, a.namespace_id,
            a.id, NULL, $2, 1, now() + $3 * interval '1 millisecond', clock_timestamp() + random() * $4 * interval '1 millisecond'
       FROM ${runningActiveRevisions(1)}
        AND NOT EXISTS (SELECT 1 FROM work_items w WHERE w.lane = a.id AND w.state IN ('queued', 'claimed'))
     ON CONFLICT (idempotency_key) DO UPDATE SET
       state = 'queued', actor_id = EXCLUDED.actor_id,
       available_at = EXCLUDED.available_at, deadline_at = EXCLUDED.deadline_at,
       attempts = 0, attempt_claimed_at = '{}', last_attempt_at = NULL, closing_claimed_at = NULL, claimed_by = NULL,
       reason_code = NULL, error_message = NULL, result = NULL, updated_at = now()
     WHERE work_items.state IN ('succeeded', 'failed', 'cancelled')
     RETURNING idempotency_key`,
    [computeDriverId, actorId, deadlineMs, spreadMs],
  );
  if (rows.length > 0) await notifyWork(q);
  return rows.length;
}
