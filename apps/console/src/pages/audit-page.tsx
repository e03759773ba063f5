import type { AuditEvent, AuditEventQuery, Namespace } from '@occ/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { errorsAt } from '../ui/api-errors.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';

interface Filters {
  actorId: string;
  action: string;
  namespaceId: string;
  resourceKind: string;
  resourceId: string;
  /** `datetime-local` values: the reader's own time zone. */
  since: string;
  until: string;
}

const ACTION_HELP = 'Exact (agents.deploy) or a prefix ending in .* (agents.*).';

const NO_FILTERS: Filters = { actorId: '', action: '', namespaceId: '', resourceKind: '', resourceId: '', since: '', until: '' };

/** A local date and time as the UTC instant the API reads; what no date is stays as typed (the API names it). */
const instant = (local: string) => {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
};

function queryOf(filters: Filters): AuditEventQuery {
  const query: AuditEventQuery = {};
  for (const key of ['actorId', 'action', 'namespaceId', 'resourceKind', 'resourceId'] as const) {
    const value = filters[key].trim();
    if (value) query[key] = value;
  }
  if (filters.since) query.since = instant(filters.since);
  if (filters.until) query.until = instant(filters.until);
  return query;
}

/**
 * The audit log (Installation administration): newest first, filtered by actor, action (exact or
 * `prefix.*`), Namespace, resource and time, a page at a time. Events outlive their resources,
 * so a resource is shown by kind and id; actors and Namespaces by name where they still exist.
 */
export function AuditPage({ namespaces }: { namespaces: readonly Namespace[] }) {
  const { api } = useConsole();
  const principals = useLoad((signal) => api.listAll('listPrincipals', { signal }), [api]);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The filters of the page shown: "Older events" asks with them (a cursor belongs to its filters).
  const shown = useRef<AuditEventQuery>({});
  const request = useRef<AbortController | null>(null);

  const load = async (query: AuditEventQuery, cursor?: string) => {
    request.current?.abort();
    const controller = new AbortController();
    request.current = controller;
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.call('listAuditEvents', { query: { ...query, ...(cursor ? { cursor } : {}) }, signal: controller.signal });
      if (controller.signal.aborted) return;
      shown.current = query;
      setEvents((previous) => (cursor ? [...(previous ?? []), ...data.items] : data.items));
      setNextCursor(data.nextCursor);
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure);
    } finally {
      if (!controller.signal.aborted) setBusy(false);
    }
  };
  useEffect(() => {
    void load({});
    return () => request.current?.abort();
  }, [api]);

  const principalName = (id: string | null) => (id === null ? 'OCC' : (principals.data?.find((p) => p.id === id)?.name ?? id));
  const namespaceName = (id: string | null) => (id === null ? '—' : (namespaces.find((n) => n.id === id)?.name ?? id));
  const set = (key: keyof Filters) => (event: { currentTarget: { value: string } }) => setDraft({ ...draft, [key]: event.currentTarget.value });
  const fieldErrors = (key: keyof Filters) => errorsAt(error, `/${key}`);
  const anyFieldError = (Object.keys(NO_FILTERS) as (keyof Filters)[]).some((key) => fieldErrors(key).length > 0);

  return (
    <section>
      <h1>Audit log</h1>
      <p class="muted">Who did what to which resource, and how it ended; newest first. Secret values and keys are never recorded.</p>
      <form
        class="audit-filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          void load(queryOf(draft));
        }}
      >
        <Field id="audit-actor" label="Actor" errors={fieldErrors('actorId')}>
          <select {...fieldAria('audit-actor', { errors: fieldErrors('actorId') })} value={draft.actorId} onChange={set('actorId')}>
            <option value="">Anyone</option>
            {(principals.data ?? []).map((principal) => (
              <option key={principal.id} value={principal.id}>
                {principal.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-action" label="Action" help={ACTION_HELP} errors={fieldErrors('action')}>
          <input
            {...fieldAria('audit-action', { help: ACTION_HELP, errors: fieldErrors('action') })}
            value={draft.action}
            onInput={set('action')}
            placeholder="agents.*"
            autoComplete="off"
            spellcheck={false}
          />
        </Field>
        <Field id="audit-namespace" label="Namespace" errors={fieldErrors('namespaceId')}>
          <select {...fieldAria('audit-namespace', { errors: fieldErrors('namespaceId') })} value={draft.namespaceId} onChange={set('namespaceId')}>
            <option value="">Any</option>
            {namespaces.map((namespace) => (
              <option key={namespace.id} value={namespace.id}>
                {namespace.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-resource-kind" label="Resource kind" errors={fieldErrors('resourceKind')}>
          <input
            {...fieldAria('audit-resource-kind', { errors: fieldErrors('resourceKind') })}
            value={draft.resourceKind}
            onInput={set('resourceKind')}
            placeholder="agent"
            autoComplete="off"
            spellcheck={false}
          />
        </Field>
        <Field id="audit-resource-id" label="Resource id" errors={fieldErrors('resourceId')}>
          <input
            {...fieldAria('audit-resource-id', { errors: fieldErrors('resourceId') })}
            value={draft.resourceId}
            onInput={set('resourceId')}
            autoComplete="off"
            spellcheck={false}
          />
        </Field>
        <Field id="audit-since" label="Since" errors={fieldErrors('since')}>
          <input {...fieldAria('audit-since', { errors: fieldErrors('since') })} type="datetime-local" step={1} value={draft.since} onInput={set('since')} />
        </Field>
        <Field id="audit-until" label="Until" errors={fieldErrors('until')}>
          <input {...fieldAria('audit-until', { errors: fieldErrors('until') })} type="datetime-local" step={1} value={draft.until} onInput={set('until')} />
        </Field>
        <div class="button-row">
          <button type="submit" class="button-primary" disabled={busy}>
            Apply filters
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setDraft(NO_FILTERS);
              void load({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {error && !anyFieldError ? <ErrorMessage error={error} context="The audit log could not be loaded" /> : null}
      {principals.status === 'error' ? <ErrorMessage error={principals.error} context="Principals could not be loaded (actors are shown by id)" /> : null}
      {events && events.length === 0 ? <p>No event matches these filters.</p> : null}
      {events && events.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table">
            <caption class="visually-hidden">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Outcome</th>
                <th scope="col">Namespace</th>
                <th scope="col">Resource</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id}>
                  <td>
                    <time dateTime={event.occurredAt} title={event.occurredAt}>
                      {formatTime(event.occurredAt)}
                    </time>
                  </td>
                  <td>{principalName(event.actorId)}</td>
                  <th scope="row">{event.action}</th>
                  <td>{event.outcome}</td>
                  <td>{namespaceName(event.namespaceId)}</td>
                  <td>{event.resource ? <code>{`${event.resource.kind}/${event.resource.id ?? '*'}`}</code> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {busy && !events ? <p aria-busy="true">Loading the audit log…</p> : null}
      {nextCursor ? (
        <button type="button" disabled={busy} onClick={() => void load(shown.current, nextCursor)}>
          {busy ? 'Loading…' : 'Older events'}
        </button>
      ) : null}
    </section>
  );
}
