import type { WorkItemRepository } from '../../core/ports/work-items.ts';
import type { Queryable } from '../database.ts';
import { enqueue } from '../work-queue/enqueue.ts';
import { getWorkItem } from '../work-queue/get.ts';
import { queueGauges } from '../work-queue/gauges.ts';
import { readProgress, recordProgress } from '../work-queue/progress.ts';

export function workItemRepository(q: Queryable): WorkItemRepository {
  return {
    enqueue: (req) => enqueue(q, req),
    get: (key) => getWorkItem(q, key),
    recordProgress: (key, progress) => recordProgress(q, key, progress),
    progress: (key) => readProgress(q, key),
    async otherOpenWork(lane, exceptKey) {
      const { rows } = await q.query("SELECT 1 FROM work_items WHERE lane = $1 AND idempotency_key <> $2 AND state IN ('queued', 'claimed') LIMIT 1", [lane, exceptKey]);
      return rows.length > 0;
    },
    async deleteForAgent(agentId) {
      const claimed = await q.query("SELECT 1 FROM work_items WHERE agent_id = $1 AND state = 'claimed' FOR UPDATE", [agentId]);
      if (claimed.rows.length > 0) return false;
      await q.query('DELETE FROM work_items WHERE agent_id = $1', [agentId]);
      return true;
    },
    queueGauges: () => queueGauges(q),
  };
}
