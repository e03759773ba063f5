import type { AgentRevisionView } from '@occ/contracts';
import { useConsole } from '../app/console-context.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';
import { LineDiffView } from './line-diff-view.tsx';
import { revisionContentJson } from './revision-content.ts';
import { stableJson } from './stable-json.ts';

/**
 * One revision, read-only: its facts, its whole snapshot as JSON text, and what changed since the
 * revision before it. The snapshot is read afresh (getAgentRevision), not taken from the list.
 */
export function RevisionDetail({ ns, agentId, revisionId, number, previous, onRollback }: { ns: string; agentId: string; revisionId: string; number: number; previous: AgentRevisionView | undefined; onRollback: (number: number) => void }) {
  const { api } = useConsole();
  // The route's :rev is the revision's id (its number is for people and for rollback).
  const revision = useLoad(async (signal) => (await api.call('getAgentRevision', { params: { ns, id: agentId, rev: revisionId }, signal })).data, [api, ns, agentId, revisionId]);

  if (revision.status === 'error') return <ErrorMessage error={revision.error} context={`Revision ${number} could not be loaded`} />;
  if (!revision.data || revision.data.id !== revisionId) return <p aria-busy="true">Loading revision {number}…</p>;
  const shown = revision.data;
  const configuration = shown.configuration;
  return (
    <section aria-label={`Revision ${number}`} class="revision-detail">
      <h2>Revision {number}</h2>
      <dl class="facts">
        <dt>Created</dt><dd>{formatTime(shown.createdAt)}</dd>
        <dt>Admitted by</dt><dd><code>{shown.actorId}</code></dd>
        <dt>Harness</dt><dd>{shown.harness}</dd>
        <dt>Harness sign-in</dt><dd>{shown.harnessAuth ? <>{shown.harnessAuth.method}, Secret <code>{shown.harnessAuth.secretId}</code></> : 'none'}</dd>
        <dt>Plugins</dt><dd>{Object.keys(shown.plugins).length}</dd>
        <dt>Configuration</dt>
        <dd>
          <code>{configuration.id}</code>, generation {configuration.generation}
          {configuration.withheld ? ' — its values are withheld: you may not read this Configuration.' : null}
        </dd>
        <dt>Compute</dt><dd>{shown.computeDriverId}</dd>
      </dl>
      <div class="button-row">
        <button type="button" onClick={() => onRollback(number)}>Roll back to this revision</button>
      </div>
      <h3>Changes since {previous ? `revision ${previous.revision}` : 'the start'}</h3>
      {previous ? (
        <LineDiffView label={`Changes from revision ${previous.revision} to revision ${number}`} before={revisionContentJson(previous)} after={revisionContentJson(shown)} />
      ) : (
        <p>This is the first revision: there is nothing before it to compare with.</p>
      )}
      <h3 id={`revision-${number}-snapshot`}>Snapshot</h3>
      <pre tabIndex={0} aria-labelledby={`revision-${number}-snapshot`}>{stableJson(shown)}</pre>
    </section>
  );
}
