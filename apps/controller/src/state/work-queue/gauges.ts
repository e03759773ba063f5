import type { WorkQueueGauge } from '../../core/ports/metrics.ts';
import type { WorkKind } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';

/**
 * The open items of each kind, at one reading of the database clock. Terminal items are kept (a
 * deployment's status is read from them) and are never counted: each arm reads one state through
 * its partial index (`work_items_claimable`, `work_items_leases`), not the whole history.
 */
export async function queueGauges(q: Queryable): Promise<WorkQueueGauge[]> {
  const { rows } = await runner(q)<{ kind: WorkKind; ready: number; delayed: number; claimed: number; oldest: number }>(
    `WITH clock AS (SELECT clock_timestamp() AS now),
     open AS (
       SELECT kind, state, available_at FROM work_items WHERE state = 'queued'
       UNION ALL
       SELECT kind, state, available_at FROM work_items WHERE state = 'claimed'
     )
     SELECT kind,
       count(*) FILTER (WHERE state = 'queued' AND available_at <= clock.now)::int AS ready,
       count(*) FILTER (WHERE state = 'queued' AND available_at > clock.now)::int AS delayed,
       count(*) FILTER (WHERE state = 'claimed')::int AS claimed,
       COALESCE(EXTRACT(EPOCH FROM clock.now - min(available_at) FILTER (WHERE state = 'queued' AND available_at <= clock.now)), 0)::float8 AS oldest
     FROM open, clock GROUP BY kind, clock.now ORDER BY kind`,
  );
  return rows.map((r) => ({ kind: r.kind, ready: r.ready, delayed: r.delayed, claimed: r.claimed, oldestReadySeconds: r.oldest }));
}
