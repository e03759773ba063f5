import type { Namespace } from '@occ/contracts';
import { useEffect, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import { errorsAt } from '../ui/api-errors.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';
import { formatTime } from '../ui/format-time.ts';
import type { Load } from '../ui/use-load.ts';

/** Namespaces the principal can see (the shell's list, read once), and a form to create one. */
export function NamespacesPage({ list, onChanged }: { list: Load<Namespace[]>; onChanged: () => void }) {
  const { api, navigate } = useConsole();
  // Read again on arrival (Namespaces made elsewhere show up), into the shell's one list: the
  // switcher and this table never disagree, and the page costs one request, not two. The shell
  // shows a failed read.
  useEffect(() => onChanged(), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.call('createNamespace', { body: { name } });
      setName('');
      onChanged();
      navigate({ page: 'agents', ns: data.id });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const nameErrors = errorsAt(error, '/name');
  return (
    <section>
      <h1>Namespaces</h1>
      {list.data && list.data.length === 0 ? <p>No Namespace yet: create the first one below.</p> : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table">
            <caption class="visually-hidden">Namespaces</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((namespace) => (
                <tr key={namespace.id}>
                  <td>
                    <a href={routeHref({ page: 'agents', ns: namespace.id })}>{namespace.name}</a>
                  </td>
                  <td>{formatTime(namespace.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {list.status === 'loading' && !list.data ? <p aria-busy="true">Loading Namespaces…</p> : null}
      <form class="inline-form" onSubmit={create} aria-label="Create a Namespace">
        <h2>Create a Namespace</h2>
        <Field id="namespace-name" label="Name" errors={nameErrors}>
          <input {...fieldAria('namespace-name', { errors: nameErrors })} required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </Field>
        {error && nameErrors.length === 0 ? <ErrorMessage error={error} context="The Namespace was not created" /> : null}
        <button type="submit" class="button-primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create Namespace'}
        </button>
      </form>
    </section>
  );
}
