import type { Secret } from '@occ/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../../app/console-context.ts';
import { errorsAt } from '../../ui/api-errors.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { Field, fieldAria } from '../../ui/field.tsx';
import { useLoad } from '../../ui/use-load.ts';

const HELP = 'The Secret holding the Codex personal access token (codex_pat) the Agent runs with; hosted plugins are discovered with it. Optional for curated plugins only.';

/**
 * The codex_pat Secret: chosen from the Namespace's Secrets (metadata only), or created right here.
 * The new value lives only in the password input, read once when saving and cleared right after
 * the request, whatever its outcome: it is never held in component state.
 */
export function CodexSecretPicker({
  ns,
  selected,
  onChange,
  errors,
}: {
  ns: string;
  selected: Secret | null;
  onChange: (secret: Secret | null) => void;
  errors: readonly string[];
}) {
  const { api } = useConsole();
  const list = useLoad((signal) => api.listAll('listSecrets', { params: { ns }, signal }), [api, ns]);
  // Secrets created here show at once, before the reloaded list includes them.
  const [created, setCreated] = useState<Secret[]>([]);
  const [creating, setCreating] = useState(false);
  const [newName, setNewName] = useState('');
  const [hasValue, setHasValue] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const valueRef = useRef<HTMLInputElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const focusSelect = useRef(false);

  const known = list.data ?? [];
  const secrets = [...known, ...created.filter((secret) => !known.some((item) => item.id === secret.id))];
  const id = 'agent-codex-secret';

  useEffect(() => {
    if (creating) nameRef.current?.focus();
    else if (focusSelect.current) {
      focusSelect.current = false;
      selectRef.current?.focus();
    }
  }, [creating]);

  const closeCreate = () => {
    if (valueRef.current) valueRef.current.value = '';
    setHasValue(false);
    setNewName('');
    setCreateError(null);
    focusSelect.current = true;
    setCreating(false);
  };

  const saveSecret = async () => {
    const input = valueRef.current;
    if (!input || busy) return;
    setBusy(true);
    setCreateError(null);
    try {
      const { data } = await api.call('createSecret', { params: { ns }, body: { name: newName, value: input.value } });
      setCreated((previous) => [...previous, data]);
      onChange(data);
      list.reload();
      closeCreate();
    } catch (failure) {
      setCreateError(failure);
    } finally {
      input.value = '';
      setHasValue(false);
      setBusy(false);
    }
  };

  // These controls sit inside the create-Agent form: Enter saves the Secret, not the Agent.
  const enterSaves = (event: KeyboardEvent) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (newName.trim() !== '' && hasValue) void saveSecret();
  };

  const nameErrors = errorsAt(createError, '/name');
  const valueErrors = errorsAt(createError, '/value');
  return (
    <div class="codex-secret">
      <Field id={id} label="codex_pat Secret" help={HELP} errors={errors}>
        <select
          ref={selectRef}
          {...fieldAria(id, { help: HELP, errors })}
          value={selected?.id ?? ''}
          onChange={(event) => onChange(secrets.find((secret) => secret.id === event.currentTarget.value) ?? null)}
        >
          <option value="">No Secret</option>
          {secrets.map((secret) => (
            <option key={secret.id} value={secret.id}>
              {secret.name}
            </option>
          ))}
        </select>
      </Field>
      {list.status === 'error' ? <ErrorMessage error={list.error} context="Secrets could not be loaded" /> : null}
      {list.status === 'loading' && !list.data ? (
        <p class="muted small" aria-busy="true">
          Loading Secrets…
        </p>
      ) : null}
      {creating ? (
        <fieldset class="inline-secret">
          <legend>New Secret</legend>
          <Field id="new-secret-name" label="Secret name" errors={nameErrors}>
            <input
              ref={nameRef}
              {...fieldAria('new-secret-name', { errors: nameErrors })}
              maxLength={200}
              autoComplete="off"
              value={newName}
              onInput={(event) => setNewName(event.currentTarget.value)}
              onKeyDown={enterSaves}
            />
          </Field>
          <Field id="new-secret-value" label="Token (write-only)" errors={valueErrors}>
            <input
              ref={valueRef}
              {...fieldAria('new-secret-value', { errors: valueErrors })}
              type="password"
              autoComplete="new-password"
              spellcheck={false}
              onInput={(event) => setHasValue(event.currentTarget.value !== '')}
              onKeyDown={enterSaves}
            />
          </Field>
          {createError ? <ErrorMessage error={createError} context="The Secret was not created" /> : null}
          <div class="button-row">
            <button type="button" onClick={() => void saveSecret()} disabled={busy || newName.trim() === '' || !hasValue}>
              {busy ? 'Saving Secret…' : 'Save Secret'}
            </button>
            <button type="button" class="button-quiet" onClick={closeCreate} disabled={busy}>
              Cancel new Secret
            </button>
          </div>
        </fieldset>
      ) : (
        <div class="button-row">
          <button type="button" onClick={() => setCreating(true)}>
            Create new Secret
          </button>
        </div>
      )}
    </div>
  );
}
