import type { AgentPhase, AgentPhaseCount } from '../../core/ports/metrics.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';

/**
 * Every Agent by phase (AGENT_PHASES) and by the ComputeDriver its latest revision was admitted
 * for (`none` before the first deploy). The latest revision's own reconcile item says how its
 * deploy went; a cancelled one was overtaken by a stop (a newer revision would be the latest).
 */
export async function countAgentsByPhase(q: Queryable): Promise<AgentPhaseCount[]> {
  const { rows } = await runner(q)<{ phase: AgentPhase; compute: string; count: number }>(
    `SELECT phase, compute, count(*)::int AS count FROM (
       SELECT CASE
           WHEN latest.id IS NULL THEN 'undeployed'
           WHEN a.desired_state = 'stopped' OR w.state = 'cancelled' THEN 'stopped'
           WHEN w.state = 'succeeded' THEN 'running'
           WHEN w.state = 'failed' THEN 'failed'
           ELSE 'deploying'
         END AS phase,
         COALESCE(latest.spec->>'computeDriverId', 'none') AS compute
       FROM agents a
       LEFT JOIN LATERAL (
         SELECT r.id, r.spec FROM agent_revisions r WHERE r.agent_id = a.id ORDER BY r.revision_number DESC LIMIT 1
       ) latest ON true
       LEFT JOIN work_items w ON w.revision_id = latest.id AND w.kind = 'reconcile_revision'
     ) agent_phases
     GROUP BY phase, compute ORDER BY phase, compute`,
  );
  return rows;
}
