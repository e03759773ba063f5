import { newId } from '../../core/ids.ts';
import type { EnqueueRequest, WorkItem, WorkQueueWriter } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { getWorkItem } from './get.ts';
import { notifyWork } from './wake.ts';
import { WORK_COLUMNS, toWorkItem, type WorkRow } from './rows.ts';

/** The fields that say what work a key names: a replayed key must agree on all of them. */
const IDENTITY = ['kind', 'lane', 'namespaceId', 'agentId', 'revisionId', 'actorId'] as const;

/**
 * Adds a work item inside the caller's transaction, or returns the one its key already names.
 * `available_at` is clock_timestamp() so items enqueued in one transaction keep their order.
 */
export async function enqueue(q: Queryable, req: EnqueueRequest): Promise<WorkItem> {
  const run = runner(q);
  const inserted = await run<WorkRow>(
    `INSERT INTO work_items (idempotency_key, id, kind, lane, namespace_id, agent_id, revision_id, actor_id,
       max_attempts, deadline_at, available_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, clock_timestamp())
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING ${WORK_COLUMNS}`,
    [req.key, newId('work_item'), req.kind, req.lane, req.namespaceId, req.agentId, req.revisionId ?? null, req.actorId, req.maxAttempts, req.deadlineAt],
  );
  if (inserted.rows[0]) {
    // Delivered when the caller's transaction commits, never for a rolled-back enqueue.
    await notifyWork(q);
    return toWorkItem(inserted.rows[0]);
  }
  const item = (await getWorkItem(q, req.key))!;
  const wanted = { ...req, revisionId: req.revisionId ?? null };
  const differs = IDENTITY.filter((field) => item[field] !== wanted[field]);
  // A programming error (two kinds of work under one key), never a user input: fail loudly.
  if (differs.length > 0) throw new Error(`work key ${req.key} already names different work (${differs.join(', ')})`);
  return item;
}

/** The admission face of the queue, bound to one transaction (for the unit of work). */
export function workQueueWriter(q: Queryable): WorkQueueWriter {
  return { enqueue: (req) => enqueue(q, req) };
}
