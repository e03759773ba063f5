import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';

/** The Namespace's Configurations (native settings and Secret bindings that Agents run with). */
export function ConfigurationsPage({ ns }: { ns: string }) {
  const { api } = useConsole();
  const list = useLoad((signal) => api.listAll('listConfigurations', { params: { ns }, signal }), [api, ns]);
  return (
    <section>
      <h1>Configurations</h1>
      <p>
        <a href={routeHref({ page: 'configuration-new', ns })}>New Configuration</a>
      </p>
      {list.status === 'error' ? <ErrorMessage error={list.error} context="Configurations could not be loaded" /> : null}
      {list.data && list.data.length === 0 ? <p>No Configuration yet: every Agent needs one.</p> : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table">
            <caption class="visually-hidden">Configurations</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Generation</th>
                <th scope="col">Secret bindings</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((configuration) => (
                <tr key={configuration.id}>
                  <td>
                    <a href={routeHref({ page: 'configuration', ns, configurationId: configuration.id })}>{configuration.name}</a>
                  </td>
                  <td>{configuration.generation}</td>
                  <td>{Object.keys(configuration.secretBindings).length}</td>
                  <td>{formatTime(configuration.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {list.status === 'loading' && !list.data ? <p aria-busy="true">Loading Configurations…</p> : null}
    </section>
  );
}
