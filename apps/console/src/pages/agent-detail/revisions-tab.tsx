import { useState } from 'preact/hooks';
import { useConsole } from '../../app/console-context.ts';
import { RevisionDetail } from '../../resources/revision-detail.tsx';
import { RollbackDialog } from '../../resources/rollback-dialog.tsx';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { formatTime } from '../../ui/format-time.ts';
import { useLoad } from '../../ui/use-load.ts';
import type { AgentTabProps } from './agent-detail-page.tsx';

/** The Agent's revisions, newest first; one shown read-only with its diff, and rollback to it. */
export function RevisionsTab({ ns, agent, reloadAgent }: AgentTabProps) {
  const { api, navigate } = useConsole();
  const revisions = useLoad((signal) => api.listAll('listAgentRevisions', { params: { ns, id: agent.id }, signal }), [api, ns, agent.id]);
  const [selected, setSelected] = useState<number | null>(null);
  const [rollingBack, setRollingBack] = useState<number | null>(null);
  const [notice, setNotice] = useState('');

  if (revisions.status === 'error' && !revisions.data) return <ErrorMessage error={revisions.error} context="The revisions could not be loaded" />;
  if (!revisions.data) return <p aria-busy="true">Loading revisions…</p>;
  const list = [...revisions.data].sort((a, b) => b.revision - a.revision);
  if (list.length === 0) return <p>No revision yet: every deploy creates one.</p>;
  const shown = list.find((revision) => revision.revision === selected) ?? list[0]!;
  const previous = list.find((revision) => revision.revision < shown.revision);

  return (
    <>
      <h2>Revisions</h2>
      <p role="status" class="small">
        {notice}
      </p>
      {revisions.status === 'error' ? <ErrorMessage error={revisions.error} context="The revisions could not be refreshed" /> : null}
      <div class="table-wrap">
        <table class="data-table">
          <caption class="visually-hidden">Revisions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
              <th scope="col">Plugins</th>
              <th scope="col">
                <span class="visually-hidden">Show</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((revision) => {
              const isShown = revision.revision === shown.revision;
              return (
                <tr key={revision.id} class={isShown ? 'row-current' : undefined}>
                  <th scope="row">{revision.revision}</th>
                  <td>{formatTime(revision.createdAt)}</td>
                  {/* The list carries no deployment state; the Agent says which revision it points at. */}
                  <td>{revision.id === agent.activeRevisionId ? <span class="badge badge-good">active</span> : <span class="muted">not active</span>}</td>
                  <td>{Object.keys(revision.plugins).length}</td>
                  <td>
                    <button type="button" aria-pressed={isShown} onClick={() => setSelected(revision.revision)}>
                      Show revision {revision.revision}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <RevisionDetail ns={ns} agentId={agent.id} revisionId={shown.id} number={shown.revision} previous={previous} onRollback={setRollingBack} />
      <RollbackDialog
        ns={ns}
        agentId={agent.id}
        number={rollingBack}
        onClose={() => setRollingBack(null)}
        onUnchanged={(active) => {
          setRollingBack(null);
          setNotice(`Nothing changed: revision ${active} already runs. The Agent's settings are revision ${active}'s again.`);
          reloadAgent();
        }}
        onDeployed={() => {
          setRollingBack(null);
          reloadAgent();
          navigate({ page: 'agent', ns, agentId: agent.id, tab: 'deployments' });
        }}
      />
    </>
  );
}
