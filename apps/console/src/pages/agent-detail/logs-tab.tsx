import { useState } from 'preact/hooks';
import { RUNTIME_LOG_TAIL_DEFAULT, RUNTIME_LOG_TAIL_MAX } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { useConsole } from '../../app/console-context.ts';
import { FOLLOW_INTERVAL_MS, useRuntimeLog } from '../../deployments/use-runtime-log.ts';
import { LogView } from '../../deployments/log-view.tsx';
import { errorsAt } from '../../ui/api-errors.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { Field, fieldAria } from '../../ui/field.tsx';
import { useLoad } from '../../ui/use-load.ts';
import type { AgentTabProps } from './agent-detail-page.tsx';

/** The revisions offered in the selector (newest first); the Revisions tab lists them all. */
const REVISIONS_OFFERED = 50;

const tailHelp = `1 to ${RUNTIME_LOG_TAIL_MAX}`;
const isUnsupported = (error: unknown) => error instanceof ApiError && error.status === 501;

/** A revision's runtime log: the last N lines, and Follow for the lines written since. */
export function LogsTab({ ns, agent }: AgentTabProps) {
  const { api } = useConsole();
  const revisions = useLoad(
    async (signal) => (await api.call('listAgentRevisions', { params: { ns, id: agent.id }, query: { limit: REVISIONS_OFFERED }, signal })).data.items,
    [api, ns, agent.id],
  );
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const [tailText, setTailText] = useState(String(RUNTIME_LOG_TAIL_DEFAULT));
  const [tail, setTail] = useState(RUNTIME_LOG_TAIL_DEFAULT);

  // Default: the active revision (what runs), else the newest one.
  const items = revisions.data ?? [];
  const active = agent.activeRevisionId;
  const revisionId = chosen ?? (active && items.some((r) => r.id === active) ? active : items[0]?.id);
  const revision = items.find((r) => r.id === revisionId);
  const log = useRuntimeLog(api, ns, agent.id, revisionId, tail);

  const apply = (event: Event) => {
    event.preventDefault();
    const value = Number(tailText);
    if (value === tail) log.reload();
    else setTail(value);
  };

  const tailErrors = errorsAt(log.error, '/tail');
  const tailValid = Number.isInteger(Number(tailText)) && Number(tailText) >= 1 && Number(tailText) <= RUNTIME_LOG_TAIL_MAX;
  const logLabel = `Runtime log of revision ${revision?.revision ?? ''}`.trim();
  return (
    <div>
      <h2>Logs</h2>
      {revisions.status === 'error' ? <ErrorMessage error={revisions.error} context="The revisions could not be loaded" /> : null}
      {revisions.status === 'loading' && !revisions.data ? <p aria-busy="true">Loading the revisions…</p> : null}
      {revisions.data && items.length === 0 ? <p>No revision yet: deploy the Agent first (Deployments tab).</p> : null}
      {items.length > 0 ? (
        <form class="log-controls" aria-label="Log options" onSubmit={apply}>
          <Field id="log-revision" label="Revision">
            <select {...fieldAria('log-revision', {})} value={revisionId} onChange={(event) => setChosen(event.currentTarget.value)}>
              {items.map((r, i) => (
                <option key={r.id} value={r.id}>
                  {`#${r.revision}${r.id === active ? ' (active)' : ''}${i === 0 ? ' (newest)' : ''}`}
                </option>
              ))}
            </select>
          </Field>
          <Field id="log-tail" label="Last lines" help={tailHelp} errors={tailErrors}>
            <input
              {...fieldAria('log-tail', { help: tailHelp, errors: tailErrors })}
              type="number"
              inputMode="numeric"
              min={1}
              max={RUNTIME_LOG_TAIL_MAX}
              step={1}
              required
              value={tailText}
              onInput={(event) => setTailText(event.currentTarget.value)}
            />
          </Field>
          <div class="button-row">
            <button type="submit" disabled={!tailValid || log.status === 'loading'}>
              {log.status === 'loading' ? 'Reading…' : 'Show lines'}
            </button>
            <label class="check">
              <input type="checkbox" checked={log.following} disabled={log.status !== 'loaded'} onChange={(event) => log.setFollowing(event.currentTarget.checked)} />
              {` Follow (new lines every ${FOLLOW_INTERVAL_MS / 1000} s)`}
            </label>
          </div>
        </form>
      ) : null}
      {log.status === 'error' && isUnsupported(log.error) ? <p class="notice">This compute target keeps no runtime logs.</p> : null}
      {log.status === 'error' && !isUnsupported(log.error) && tailErrors.length === 0 ? <ErrorMessage error={log.error} context="The log could not be read" /> : null}
      {log.followError ? <ErrorMessage error={log.followError} context="Following stopped" /> : null}
      {log.status === 'loading' && log.revisionId === revisionId && log.lines.length === 0 ? <p aria-busy="true">Reading the log…</p> : null}
      {log.revisionId === revisionId && (log.status === 'loaded' || log.lines.length > 0) ? (
        <>
          <p role="status" class="small muted">
            {log.following ? 'Following: new lines appear below as they are written.' : ''}
          </p>
          {log.truncated ? <p class="small muted">Earlier lines exist that are not shown, or a line was cut.</p> : null}
          {log.lines.length === 0 ? <p>No logs yet for this revision.</p> : <LogView lines={log.lines} label={logLabel} />}
        </>
      ) : null}
    </div>
  );
}
