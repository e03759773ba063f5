import { pluginWarningText, type AgentRevisionView, type DeploymentStatus, type RuntimeView } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { useConsole } from '../app/console-context.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';
import { ReasonCode } from './deployment-summary.tsx';
import { runtimeLastFailure } from './last-failure.ts';
import type { ReceivedEvent } from './use-deployment-progress.ts';

/** The gateway as the view lets one tell: `ready` means the trusted status is ready AND the gateway answered. */
function gatewayWords(view: RuntimeView): string {
  if (view.ready) return 'serving: it answered at this read';
  if (view.phase === 'ready') return 'not answering yet (the runtime is ready, its gateway is not)';
  if (!view.running) return 'not running';
  return 'not started yet';
}

function DeliveredNames({ names }: { names: RuntimeView['deliveredSecrets'] }) {
  if (names === null) return <>withheld: you may not read this revision's Configuration</>;
  if (names.length === 0) return <>none</>;
  return (
    <ul class="plain-list">
      {names.map((name) => (
        <li key={name}>
          <code>{name}</code>
        </li>
      ))}
    </ul>
  );
}

/** What the serving gateway said it runs (read back at its start): plugins with their tools, OpenClaw's own tools, scheduled jobs. */
function LoadedFacts({ loaded }: { loaded: RuntimeView['loaded'] }) {
  if (loaded === null) return <dd>not known: the runtime is not ready, or its harness does not report it</dd>;
  return (
    <dd>
      <ul class="plain-list" aria-label="Loaded plugins">
        {loaded.plugins.length === 0 ? <li>no plugins</li> : null}
        {loaded.plugins.map((plugin) => (
          <li key={plugin.id}>
            <code>{plugin.id}</code> —{' '}
            {plugin.tools.length > 0 ? (
              <>
                tools <code>{plugin.tools.join(', ')}</code>
              </>
            ) : (
              'no tools (a provider or channel)'
            )}
          </li>
        ))}
      </ul>
      <p>OpenClaw's own tools (before the Configuration's tool policy): {loaded.coreTools.length > 0 ? loaded.coreTools.join(', ') : 'none'}</p>
      <p>Scheduled jobs: {loaded.scheduledJobs.length > 0 ? loaded.scheduledJobs.join(', ') : 'none'}</p>
    </dd>
  );
}

/** The revision's plugin selections, each with this deploy's warning for it, if any. */
function PluginList({ revision, status }: { revision: AgentRevisionView; status: DeploymentStatus }) {
  const ids = Object.keys(revision.plugins);
  if (ids.length === 0) return <>none selected</>;
  return (
    <ul class="plain-list">
      {ids.map((id) => {
        const warnings = status.warnings.filter((warning) => warning.pluginId === id);
        return (
          <li key={id}>
            {warnings.length > 0 ? (
              warnings.map((warning) => pluginWarningText(id, warning.code)).join('; ')
            ) : (
              <>
                <code>{id}</code> — no warning
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * What runs for a revision NOW, read live from the ComputeDriver (never stored, unlike the
 * deployment status): a deploy may have succeeded and its runtime crashed since. Facts, not JSON;
 * environment variables by name only (the API never sends values). `events` are the revision's
 * deployment events (replayed by the Progress list): a failed deploy's last failure comes from them.
 */
export function RuntimeFacts({
  ns,
  agentId,
  revision,
  status,
  events,
}: {
  ns: string;
  agentId: string;
  revision: AgentRevisionView;
  status: DeploymentStatus;
  events: readonly ReceivedEvent[];
}) {
  const { api } = useConsole();
  const view = useLoad(async (signal) => (await api.call('getRuntimeView', { params: { ns, id: agentId, rev: revision.id }, signal })).data, [api, ns, agentId, revision.id]);
  const unsupported = view.status === 'error' && view.error instanceof ApiError && view.error.status === 501;
  return (
    <section aria-label={`Runtime of revision ${revision.revision}`}>
      <h3>Runtime now</h3>
      {unsupported ? <p class="notice">This compute target cannot describe its runtimes.</p> : null}
      {view.status === 'error' && !unsupported ? <ErrorMessage error={view.error} context="The runtime could not be read" /> : null}
      {view.status === 'loading' && !view.data ? <p aria-busy="true">Reading the runtime…</p> : null}
      {view.data ? (
        <dl class="facts">
          <dt>Observed</dt>
          <dd>
            <time dateTime={view.data.observedAt}>{formatTime(view.data.observedAt)}</time>
          </dd>
          <dt>Running</dt>
          <dd>{view.data.running ? 'yes' : 'no'}</dd>
          <dt>Ready</dt>
          <dd>{view.data.ready ? 'yes' : 'no'}</dd>
          <dt>Startup phase</dt>
          <dd>{view.data.phase ?? 'unknown (its status could not be read or trusted)'}</dd>
          <dt>Gateway</dt>
          <dd>{gatewayWords(view.data)}</dd>
          <dt>Restarts</dt>
          <dd>{view.data.restarts}</dd>
          <dt>Last failure</dt>
          <dd>
            <ReasonCode code={runtimeLastFailure(view.data, status, events)} />
          </dd>
          <dt>Delivered environment</dt>
          <dd>
            <DeliveredNames names={view.data.deliveredSecrets} />
          </dd>
          <dt>Plugins</dt>
          <dd>
            <PluginList revision={revision} status={status} />
          </dd>
          <dt>Loaded by the gateway</dt>
          <LoadedFacts loaded={view.data.loaded} />
        </dl>
      ) : null}
      <div class="button-row">
        <button type="button" onClick={view.reload} disabled={view.status === 'loading'}>
          Read the runtime again
        </button>
      </div>
    </section>
  );
}
