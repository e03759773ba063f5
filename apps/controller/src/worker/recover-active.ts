import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentRevision } from '@occ/contracts';
import { runtimeManifest } from './runtime-manifest.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * After this process starts, every revision the pointers name on its ComputeDriver runs again:
 * the same step as bringing one back after a failed candidate (`restoreRevision`), so recovery is
 * not a path of its own [S-2][K-7]. The database is the truth about what should run; a target
 * that already runs something of the Agent (a container or pod that outlived OCC) is left as it
 * is. A database that does not answer is asked again after `retryMs`, until `signal` ends.
 */
export async function recoverActiveRevisions(deps: WorkerDeps, signal: AbortSignal, retryMs: number): Promise<void> {
  let revisions: AgentRevision[] | null = null;
  while (!revisions && !signal.aborted) {
    try {
      revisions = await deps.state.read(async (uow) => {
        const refs = await uow.revisions.activeOnCompute(deps.compute.id);
        const found = await Promise.all(refs.map((ref) => uow.revisions.get(ref.namespaceId, ref.agentId, ref.revisionId)));
        return found.filter((revision): revision is AgentRevision => revision !== null);
      });
    } catch (error) {
      deps.log?.('worker.recovery_failed', { error: String(error) });
      await sleep(retryMs, undefined, { signal }).catch(() => {});
    }
  }
  for (const revision of revisions ?? []) {
    if (signal.aborted) return;
    try {
      await deps.compute.restoreRevision(revision, runtimeManifest(revision), { kind: 'recovery' }, { signal });
    } catch (error) {
      // One Agent that cannot be brought back (a refused start is retried by the target) never holds up the others.
      deps.log?.('worker.recovery_failed', { agentId: revision.agentId, revisionId: revision.id, error: String(error) });
    }
  }
}
