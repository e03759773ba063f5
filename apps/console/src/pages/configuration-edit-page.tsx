import type { Configuration } from '@occ/contracts';
import { useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import { ConfigurationForm } from '../resources/configuration-form.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';

/** A new Configuration (`configurationId` null) or an existing one, read and then edited. */
export function ConfigurationEditPage({ ns, configurationId }: { ns: string; configurationId: string | null }) {
  const { api, navigate } = useConsole();
  const [saved, setSaved] = useState('');
  const existing = useLoad(
    async (signal) => {
      if (configurationId === null) return null;
      const result = await api.call('getConfiguration', { params: { ns, id: configurationId }, signal });
      return { configuration: result.data, etag: result.etag };
    },
    [api, ns, configurationId],
  );
  const secrets = useLoad((signal) => api.listAll('listSecrets', { params: { ns }, signal }), [api, ns]);

  const onSaved = (configuration: Configuration) => {
    setSaved(`Saved ${configuration.name}: generation ${configuration.generation}.`);
    if (configurationId === null) navigate({ page: 'configuration', ns, configurationId: configuration.id });
    else existing.reload();
  };

  const breadcrumb = (
    <p class="small">
      <a href={routeHref({ page: 'configurations', ns })}>Configurations</a> /
    </p>
  );
  if (existing.status === 'error' && !existing.data) {
    return (
      <section>
        {breadcrumb}
        <h1>Configuration</h1>
        <ErrorMessage error={existing.error} context="The Configuration could not be loaded" />
      </section>
    );
  }
  // A new page's data is null at once; an existing one waits for its read (and, while it
  // reloads after a save, keeps the form it has).
  const loaded = existing.data !== undefined && (configurationId === null || existing.data?.configuration.id === configurationId);
  const current = loaded ? (existing.data?.configuration ?? null) : null;
  return (
    <section>
      {breadcrumb}
      <h1>{configurationId === null ? 'New Configuration' : current ? `Configuration ${current.name}` : 'Configuration'}</h1>
      {current ? (
        <dl class="facts">
          <dt>Generation</dt>
          <dd>{current.generation}</dd>
          <dt>Updated</dt>
          <dd>{formatTime(current.updatedAt)}</dd>
        </dl>
      ) : null}
      <p role="status" class={saved ? 'notice' : 'visually-hidden'}>
        {saved}
      </p>
      {secrets.status === 'error' ? <ErrorMessage error={secrets.error} context="Secrets could not be loaded for the bindings" /> : null}
      {!loaded ? (
        <p aria-busy="true">Loading the Configuration…</p>
      ) : (
        <ConfigurationForm
          key={current ? `${current.id}:${current.generation}` : 'new'}
          ns={ns}
          initial={current}
          etag={existing.data?.etag}
          secrets={secrets.data ?? []}
          onSaved={onSaved}
          onReload={() => {
            setSaved('');
            existing.reload();
          }}
        />
      )}
    </section>
  );
}
