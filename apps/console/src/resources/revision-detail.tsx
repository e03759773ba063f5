import type { AgentRevisionView } from '@occ/contracts';
import { useConsole } from '../app/console-context.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad, type Load } from '../ui/use-load.ts';
import { LineDiffView } from './line-diff-view.tsx';
import { revisionContentJson } from './revision-content.ts';
import { stableJson } from './stable-json.ts';

/**
 * One revision, read-only: its facts, its whole snapshot as JSON text, and what changed since the
 * revision before it. The snapshot is read afresh (getAgentRevision), not taken from the list.
 */
export function RevisionDetail({
  ns,
  agentId,
  revisionId,
  number,
  previous,
  onRollback,
}: {
  ns: string;
  agentId: string;
  revisionId: string;
  number: number;
  previous: AgentRevisionView | undefined;
  onRollback: (number: number) => void;
}) {
  const { api, session } = useConsole();
  // The route's :rev is the revision's id (its number is for people and for rollback).
  const revision = useLoad(async (signal) => (await api.call('getAgentRevision', { params: { ns, id: agentId, rev: revisionId }, signal })).data, [api, ns, agentId, revisionId]);
  // Names for the ids the snapshot holds, each read on its own (one the reader may not see costs only its own name).
  const actorId = revision.data?.actorId;
  const actor = useLoad(
    async (signal) => {
      if (!actorId) return undefined;
      if (actorId === session.principalId) return `${session.principalName} (you)`;
      return (await api.call('getPrincipal', { params: { id: actorId }, signal })).data.name;
    },
    [api, actorId, session.principalId],
  );
  const configurationId = revision.data?.configuration.id;
  const configurationName = useLoad(
    async (signal) => (configurationId ? (await api.call('getConfiguration', { params: { ns, id: configurationId }, signal })).data.name : undefined),
    [api, ns, configurationId],
  );
  const secretId = revision.data?.harnessAuth?.secretId;
  const secretName = useLoad(
    async (signal) => (secretId ? (await api.listAll('listSecrets', { params: { ns }, signal })).find((secret) => secret.id === secretId)?.name : undefined),
    [api, ns, secretId],
  );

  if (revision.status === 'error') return <ErrorMessage error={revision.error} context={`Revision ${number} could not be loaded`} />;
  if (!revision.data || revision.data.id !== revisionId) return <p aria-busy="true">Loading revision {number}…</p>;
  const shown = revision.data;
  const configuration = shown.configuration;
  return (
    <section aria-label={`Revision ${number}`} class="revision-detail">
      <h2>Revision {number}</h2>
      <dl class="facts">
        <dt>Created</dt>
        <dd>{formatTime(shown.createdAt)}</dd>
        <dt>Deployed by</dt>
        <dd>
          <NameOf load={actor} id={shown.actorId} />
        </dd>
        <dt>Harness</dt>
        <dd>{shown.harness}</dd>
        <dt>Harness sign-in</dt>
        <dd>
          {shown.harnessAuth ? (
            <>
              {shown.harnessAuth.method}, Secret <NameOf load={secretName} id={shown.harnessAuth.secretId} />
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>Plugins</dt>
        <dd>{Object.keys(shown.plugins).length}</dd>
        <dt>Configuration</dt>
        <dd>
          <NameOf load={configurationName} id={configuration.id} />, generation {configuration.generation}
          {configuration.withheld ? ' — its values are withheld: you may not read this Configuration.' : null}
        </dd>
        <dt>Compute</dt>
        <dd>{shown.computeDriverId}</dd>
      </dl>
      <div class="button-row">
        <button type="button" onClick={() => onRollback(number)}>
          Roll back to this revision
        </button>
      </div>
      <h3>Changes since {previous ? `revision ${previous.revision}` : 'the start'}</h3>
      {previous ? (
        <LineDiffView label={`Changes from revision ${previous.revision} to revision ${number}`} before={revisionContentJson(previous)} after={revisionContentJson(shown)} />
      ) : (
        <p>This is the first revision: there is nothing before it to compare with.</p>
      )}
      <h3 id={`revision-${number}-snapshot`}>Snapshot</h3>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable, run by apps/console/test/browser/console-flow.test.ts) */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a focusable scrollable region needs a name (axe scrollable-region-focusable) */}
      <pre tabIndex={0} aria-labelledby={`revision-${number}-snapshot`}>
        {stableJson(shown)}
      </pre>
    </section>
  );
}

/**
 * A resource by its name. Only when its name cannot be read (no permission, or it is gone) is the
 * id shown, saying so: it is then the one thing that names it.
 */
function NameOf({ load, id }: { load: Load<string | undefined>; id: string }) {
  if (load.data) return <>{load.data}</>;
  if (load.status === 'loading') return <span aria-busy="true">…</span>;
  return (
    <>
      <code>{id}</code> <span class="muted">(name not readable)</span>
    </>
  );
}
