import { useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { errorsAt } from '../ui/api-errors.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';

/**
 * Creates a Secret. The value input is uncontrolled: the value lives only in the input until the
 * request is sent, is never copied into component state, and the input is emptied afterwards
 * whatever the answer.
 */
const VALUE_HELP = 'Write-only: it is never shown again, here or anywhere in the API.';

export function SecretCreateForm({ ns, onCreated }: { ns: string; onCreated: (name: string) => void }) {
  const { api } = useConsole();
  const valueInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    const input = valueInput.current;
    if (!input) return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.call('createSecret', { params: { ns }, body: { name: name.trim(), value: input.value } });
      setName('');
      onCreated(data.name);
    } catch (failure) {
      setError(failure);
    } finally {
      input.value = '';
      setBusy(false);
    }
  };

  const nameErrors = errorsAt(error, '/name');
  const valueErrors = errorsAt(error, '/value');
  return (
    <form class="inline-form" onSubmit={create} aria-label="Create a Secret">
      <h2>Create a Secret</h2>
      <Field id="secret-name" label="Name" errors={nameErrors}>
        <input
          {...fieldAria('secret-name', { errors: nameErrors })}
          required
          maxLength={200}
          autocomplete="off"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </Field>
      <Field id="secret-value" label="Value" help={VALUE_HELP} errors={valueErrors}>
        <input {...fieldAria('secret-value', { help: VALUE_HELP, errors: valueErrors })} ref={valueInput} type="password" required autocomplete="new-password" spellcheck={false} />
      </Field>
      {error && nameErrors.length === 0 && valueErrors.length === 0 ? <ErrorMessage error={error} context="The Secret was not created" /> : null}
      <button type="submit" class="button-primary" disabled={busy || name.trim() === ''}>
        {busy ? 'Creating…' : 'Create Secret'}
      </button>
    </form>
  );
}
