import type { Agent } from '@occ/contracts';
import { useConsole } from '../../app/console-context.ts';
import { routeHref } from '../../app/routes.ts';
import { describeError } from '../../ui/api-errors.ts';
import { DeploymentBadge } from '../../ui/deployment-badge.tsx';
import { formatTime } from '../../ui/format-time.ts';
import { activeRevisionWords } from '../../ui/revision-words.ts';
import { useLoad } from '../../ui/use-load.ts';
import { loadDeploymentSummary } from './deployment-summary.ts';

const HARNESS_WORDS: Record<Agent['harness'], string> = { openclaw: 'OpenClaw', codex: 'Codex' };

/**
 * One Agent in the list. Each row loads its own deployment summary, so rows load in parallel,
 * one failing row never hides the others, and leaving the page aborts every request.
 */
export function AgentRow({ ns, agent }: { ns: string; agent: Agent }) {
  const { api } = useConsole();
  const summary = useLoad((signal) => loadDeploymentSummary(api, ns, agent, signal), [api, ns, agent.id, agent.activeRevisionId, agent.updatedAt]);
  const failed = summary.status === 'error' ? describeError(summary.error) : null;
  return (
    <tr>
      <th scope="row">
        <a href={routeHref({ page: 'agent', ns, agentId: agent.id, tab: 'plugins' })}>{agent.name}</a>
      </th>
      <td>{HARNESS_WORDS[agent.harness]}</td>
      <td>
        {agent.activeRevisionId === null ? (
          <span class="muted">none</span>
        ) : (
          activeRevisionWords(agent.activeRevisionId, {
            status: summary.status,
            revisionId: summary.data ? agent.activeRevisionId : undefined,
            revision: summary.data?.activeRevision,
          })
        )}
      </td>
      <td>
        {summary.data ? (
          summary.data.last === null ? (
            <span class="muted">never deployed</span>
          ) : (
            <span class="deployment-glance">
              <DeploymentBadge state={summary.data.last.state} />
              <span class="small">revision {summary.data.last.revision}</span>
              {summary.data.last.warnings.length > 0 ? (
                <span class="small">{summary.data.last.warnings.length === 1 ? '1 plugin warning' : `${summary.data.last.warnings.length} plugin warnings`}</span>
              ) : null}
            </span>
          )
        ) : failed ? (
          <span class="muted small" title={failed.requestId ? `Request ${failed.requestId}` : undefined}>
            not available: {failed.title}
            {failed.code ? ` (${failed.code})` : ''}
          </span>
        ) : (
          <span class="muted small" aria-busy="true">
            loading…
          </span>
        )}
      </td>
      <td>
        <time dateTime={agent.updatedAt} title={agent.updatedAt}>
          {formatTime(agent.updatedAt)}
        </time>
      </td>
    </tr>
  );
}
