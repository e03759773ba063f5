import type { AgentRevisionView, DeploymentStatus } from '@occ/contracts';
import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import { DeploymentBadge } from '../ui/deployment-badge.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';

/** Earlier revisions' deploy states at a glance; their snapshots and diffs live on the Revisions tab. */
export function RevisionHistory({ ns, agentId, revisions }: { ns: string; agentId: string; revisions: readonly AgentRevisionView[] }) {
  const { api } = useConsole();
  const ids = revisions.map((revision) => revision.id).join(',');
  // One failed read costs its row only ("unknown"), never the table.
  const statuses = useLoad(
    async (signal) => {
      const settled = await Promise.allSettled(revisions.map((revision) => api.call('getDeploymentStatus', { params: { ns, id: agentId, rev: revision.id }, signal })));
      return new Map(settled.flatMap((result, i): [string, DeploymentStatus][] => (result.status === 'fulfilled' ? [[revisions[i]!.id, result.value.data]] : [])));
    },
    [api, ns, agentId, ids],
  );
  const revisionsHref = routeHref({ page: 'agent', ns, agentId, tab: 'revisions' });
  if (revisions.length === 0) return null;
  return (
    <section aria-label="Earlier revisions">
      <h3>Earlier revisions</h3>
      {statuses.status === 'error' ? <ErrorMessage error={statuses.error} context="Earlier deployments could not be read" /> : null}
      <div class="table-wrap">
        <table class="data-table">
          <caption class="visually-hidden">Deploy state of earlier revisions</caption>
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col">Last attempt</th>
            </tr>
          </thead>
          <tbody>
            {revisions.map((revision) => {
              const status = statuses.data?.get(revision.id);
              return (
                <tr key={revision.id}>
                  <td>
                    <a href={revisionsHref} aria-label={`Revision ${revision.revision} on the Revisions tab`}>
                      #{revision.revision}
                    </a>
                  </td>
                  <td>{status ? <DeploymentBadge state={status.state} /> : statuses.data ? 'unknown' : '…'}</td>
                  <td>
                    <time dateTime={revision.createdAt}>{formatTime(revision.createdAt)}</time>
                  </td>
                  <td>{status?.lastAttempt ? <time dateTime={status.lastAttempt.at}>{formatTime(status.lastAttempt.at)}</time> : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p class="small">
        <a href={revisionsHref}>All revisions, their snapshots and rollback</a>
      </p>
    </section>
  );
}
