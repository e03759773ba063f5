/**
 * The rows "what should run on a ComputeDriver": each Agent that wants to run (`a`) joined to its
 * active revision (`r`) on the driver named by the parameter `$<param>`. One home for the rule that
 * recovery at a worker's start (revisions.activeOnCompute) and the periodic check's arming
 * (work-queue/arm-ensure-active.ts) both read.
 */
export function runningActiveRevisions(param: number): string {
  return `agents a
       JOIN agent_revisions r ON r.namespace_id = a.namespace_id AND r.agent_id = a.id AND r.id = a.active_revision_id
      WHERE a.desired_state = 'running' AND r.spec->>'computeDriverId' = $${param}`;
}
