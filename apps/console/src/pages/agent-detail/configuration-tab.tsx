import { useEffect, useState } from 'preact/hooks';
import { useConsole } from '../../app/console-context.ts';
import { routeHref } from '../../app/routes.ts';
import { isStale, StaleNotice } from '../../resources/stale-notice.tsx';
import { errorsAt } from '../../ui/api-errors.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { Field, fieldAria } from '../../ui/field.tsx';
import { useLoad } from '../../ui/use-load.ts';
import type { AgentTabProps } from './agent-detail-page.tsx';

/** The Agent's Configuration (with its Secret bindings by name) and switching to another one. */
export function ConfigurationTab({ ns, agent, etag, reloadAgent }: AgentTabProps) {
  const { api } = useConsole();
  const current = useLoad(async (signal) => (await api.call('getConfiguration', { params: { ns, id: agent.configurationId }, signal })).data, [api, ns, agent.configurationId]);
  const configurations = useLoad((signal) => api.listAll('listConfigurations', { params: { ns }, signal }), [api, ns]);
  const secrets = useLoad((signal) => api.listAll('listSecrets', { params: { ns }, signal }), [api, ns]);
  const [choice, setChoice] = useState(agent.configurationId);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');

  useEffect(() => setChoice(agent.configurationId), [agent.configurationId]);

  const secretName = (secretId: string) => secrets.data?.find((secret) => secret.id === secretId)?.name;
  const switchConfiguration = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDone('');
    try {
      await api.call('updateAgent', { params: { ns, id: agent.id }, body: { configurationId: choice }, ifMatch: etag });
      const name = configurations.data?.find((configuration) => configuration.id === choice)?.name ?? choice;
      setDone(`The Agent now uses ${name}. Deploy it to run with this Configuration.`);
      reloadAgent();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const choiceErrors = errorsAt(error, '/configurationId');
  const shown = current.data?.id === agent.configurationId ? current.data : undefined;
  return (
    <>
      <h2>Configuration</h2>
      {current.status === 'error' ? <ErrorMessage error={current.error} context="The Agent's Configuration could not be loaded" /> : null}
      {!shown && current.status === 'loading' ? <p aria-busy="true">Loading the Configuration…</p> : null}
      {shown ? (
        <>
          <dl class="facts">
            <dt>Name</dt>
            <dd>{shown.name}</dd>
            <dt>Generation</dt>
            <dd>{shown.generation}</dd>
            <dt>Secret bindings</dt>
            <dd>{Object.keys(shown.secretBindings).length === 0 ? 'none' : Object.keys(shown.secretBindings).length}</dd>
          </dl>
          {Object.keys(shown.secretBindings).length > 0 ? (
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">Secret bindings: environment variable and Secret</caption>
                <thead>
                  <tr>
                    <th scope="col">Environment variable</th>
                    <th scope="col">Secret</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(shown.secretBindings).map(([env, { secretId }]) => (
                    <tr key={env}>
                      <td>
                        <code>{env}</code>
                      </td>
                      <td>
                        {secretName(secretId) ?? (
                          <>
                            <code>{secretId}</code>
                            {secrets.data ? <span class="muted"> (name not readable)</span> : null}
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          <p>
            <a href={routeHref({ page: 'configuration', ns, configurationId: shown.id })}>Edit Configuration {shown.name}</a>
          </p>
        </>
      ) : null}
      {secrets.status === 'error' ? <ErrorMessage error={secrets.error} context="Secret names could not be loaded" /> : null}

      <form class="inline-form" onSubmit={switchConfiguration} aria-label="Switch the Configuration">
        <h3>Use another Configuration</h3>
        {configurations.status === 'error' ? <ErrorMessage error={configurations.error} context="Configurations could not be loaded" /> : null}
        <Field id="agent-configuration" label="Configuration to use" help="The change applies at the next deploy." errors={choiceErrors}>
          <select
            {...fieldAria('agent-configuration', { help: 'The change applies at the next deploy.', errors: choiceErrors })}
            value={choice}
            onChange={(event) => setChoice(event.currentTarget.value)}
          >
            {(configurations.data ?? []).some((configuration) => configuration.id === agent.configurationId) ? null : (
              <option value={agent.configurationId}>{shown ? `${shown.name} (current)` : 'the current Configuration'}</option>
            )}
            {(configurations.data ?? []).map((configuration) => (
              <option key={configuration.id} value={configuration.id}>
                {configuration.name}
                {configuration.id === agent.configurationId ? ' (current)' : ''}
              </option>
            ))}
          </select>
        </Field>
        {isStale(error) ? (
          <StaleNotice
            what="The Agent"
            onReload={() => {
              setError(null);
              reloadAgent();
            }}
          />
        ) : error && choiceErrors.length === 0 ? (
          <ErrorMessage error={error} context="The Configuration was not switched" />
        ) : null}
        <p role="status" class={done ? 'notice' : 'visually-hidden'}>
          {done}
        </p>
        <button type="submit" class="button-primary" disabled={busy || choice === agent.configurationId}>
          {busy ? 'Switching…' : 'Switch Configuration'}
        </button>
      </form>
    </>
  );
}
