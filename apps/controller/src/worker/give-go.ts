import type { AgentRevision } from '@occ/contracts';
import type { LeaseGuard } from './lease-guard.ts';
import { bringBackActive } from './give-up-candidate.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * A revision prepared beside the Agent's serving runtime answered `awaitsGo`: the worker gives the
 * go (docs/deployments.md, "A redeploy prepares beside the serving revision") — the target stops
 * the Agent's other runtimes, then the revision starts its gateway. Decided here for every target;
 * never on a deploy's last look, whose candidate is given up instead (the go would stop the serving
 * revision for nothing). A go that throws ends the attempt as a prepare that throws does: the
 * active revision is asked back (nothing starts while the held candidate runs), then the retry.
 */
export async function giveGo(deps: WorkerDeps, revision: AgentRevision, guard: LeaseGuard): Promise<void> {
  const proceed = deps.compute.proceedRevision?.bind(deps.compute);
  if (!proceed) return;
  const { namespaceId, agentId } = revision;
  try {
    await guard.run((signal) => proceed({ namespaceId, agentId }, revision.id, { signal }));
  } catch (error) {
    if (!guard.signal.aborted) await bringBackActive(deps, revision, guard).catch(() => {});
    throw error;
  }
}
