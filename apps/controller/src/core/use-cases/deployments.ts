import type { AgentRevision, AgentRevisionView, DeploymentStatus, PluginWarning } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import type { WorkItem } from '../ports/work-queue.ts';
import { reconcileKey } from './deploy.ts';
import { revisionView } from './revision-view.ts';

/** Every revision of an Agent its readers may see; each Configuration snapshot as `revisionView` allows. */
export async function listRevisions(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string, query: ListQuery): Promise<Page<AgentRevisionView>> {
  const page = await deps.state.read(async (uow) => {
    if (!(await uow.agents.get(namespaceId, agentId))) throw notFound('Agent');
    return pageVisible(
      `revisions:${agentId}`,
      query,
      (p) => uow.revisions.scan(namespaceId, agentId, p),
      (r) => String(r.revision),
      () => true,
    );
  });
  return { items: page.items.map((r) => revisionView(caller, r)), nextCursor: page.nextCursor };
}

export async function getRevision(deps: ControllerDeps, caller: Caller, namespaceId: string, agentId: string, revisionId: string): Promise<AgentRevisionView> {
  const revision = await deps.state.read((uow) => uow.revisions.get(namespaceId, agentId, revisionId));
  if (!revision) throw notFound('Revision');
  return revisionView(caller, revision);
}

function warningsOf(result: unknown): PluginWarning[] {
  const warnings = (result as { warnings?: unknown } | null)?.warnings;
  return Array.isArray(warnings) ? (warnings as PluginWarning[]) : [];
}

/** The status of one deploy, projected from the stored work item (never a live probe). */
export function projectStatus(revision: AgentRevision, item: WorkItem | null, activeRevisionId: string | null): DeploymentStatus {
  const base = { revisionId: revision.id, agentId: revision.agentId, revision: revision.revision, active: activeRevisionId === revision.id };
  if (!item) return { ...base, state: 'queued', reasonCode: null, attempts: 0, lastAttempt: null, nextAttemptAt: null, error: null, warnings: [] };
  const lastAttempt = item.lastAttemptAt ? { code: item.reasonCode, at: item.lastAttemptAt } : null;
  const common = { ...base, reasonCode: item.reasonCode, attempts: item.attempts, lastAttempt };
  switch (item.state) {
    case 'queued':
      return { ...common, state: item.lastAttemptAt ? 'running' : 'queued', nextAttemptAt: item.availableAt, error: null, warnings: [] };
    case 'claimed':
      return { ...common, state: 'running', nextAttemptAt: null, error: null, warnings: [] };
    case 'succeeded':
      return { ...common, state: 'succeeded', nextAttemptAt: null, error: null, warnings: warningsOf(item.result) };
    case 'cancelled':
      // Overtaken before it became active: said as such, neither a success nor an error.
      return { ...common, state: item.reasonCode === 'REVISION_STOPPED' ? 'stopped' : 'superseded', nextAttemptAt: null, error: null, warnings: [] };
    case 'failed':
      return {
        ...common,
        state: 'failed',
        nextAttemptAt: null,
        error: { code: item.reasonCode ?? 'DEPLOYMENT_FAILED', message: item.errorMessage ?? 'The deployment failed.' },
        warnings: [],
      };
  }
}

export async function getDeploymentStatus(deps: ControllerDeps, _caller: Caller, namespaceId: string, agentId: string, revisionId: string): Promise<DeploymentStatus> {
  return deps.state.read(async (uow) => {
    const revision = await uow.revisions.get(namespaceId, agentId, revisionId);
    if (!revision) throw notFound('Revision');
    // One after the other, the item first: reads are not one snapshot, and the worker moves the
    // pointer before it completes the item, so a completed item read first is never paired with a
    // pointer read from before (both at once, a slow connection once answered `succeeded`, not active).
    const item = await uow.work.get(reconcileKey(revisionId));
    const agent = await uow.agents.get(namespaceId, agentId);
    return projectStatus(revision, item, agent?.activeRevisionId ?? null);
  });
}
