import type { Configuration, Secret } from '@occ/contracts';
import { useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { errorsAt } from '../ui/api-errors.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';
import { parseJsonObject } from './json-text.ts';
import { JsonValuesField, type JsonSyntaxProblem } from './json-values-field.tsx';
import { detailsUnder } from './pointer-errors.ts';
import { bindingsFromRows, rowsFromBindings, type BindingRow, type RowProblems } from './secret-bindings.ts';
import { SecretBindingsEditor } from './secret-bindings-editor.tsx';
import { isStale, StaleNotice } from './stale-notice.tsx';

/**
 * Creates a Configuration (`initial` null) or edits one: name, values as JSON text, Secret
 * bindings. Nothing is sent until the JSON parses and every binding row is complete; the
 * server's pointer errors then land at the field they name.
 */
export function ConfigurationForm({
  ns,
  initial,
  etag,
  secrets,
  onSaved,
  onReload,
}: {
  ns: string;
  initial: Configuration | null;
  etag: string | undefined;
  secrets: readonly Secret[];
  onSaved: (configuration: Configuration) => void;
  onReload: () => void;
}) {
  const { api } = useConsole();
  const valuesRef = useRef<HTMLTextAreaElement>(null);
  const [name, setName] = useState(initial?.name ?? '');
  const [valuesText, setValuesText] = useState(() => JSON.stringify(initial?.values ?? {}, null, 2));
  const [rows, setRows] = useState<BindingRow[]>(() => rowsFromBindings(initial?.secretBindings ?? {}));
  const [syntax, setSyntax] = useState<JsonSyntaxProblem | null>(null);
  const [problems, setProblems] = useState<ReadonlyMap<number, RowProblems>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const parsed = parseJsonObject(valuesText);
    setSyntax(parsed.ok ? null : parsed);
    const bindings = bindingsFromRows(rows);
    setProblems(bindings.problems);
    if (!parsed.ok) {
      valuesRef.current?.focus();
      return;
    }
    if (bindings.problems.size > 0) return;
    const body = { name: name.trim(), values: parsed.value, secretBindings: bindings.bindings };
    setBusy(true);
    try {
      if (!initial) {
        onSaved((await api.call('createConfiguration', { params: { ns }, body })).data);
        return;
      }
      // If-Match: the ETag (generation) this page read. A save elsewhere since then answers 412,
      // shown as "changed elsewhere — reload", and this one writes nothing.
      onSaved((await api.call('updateConfiguration', { params: { ns, id: initial.id }, body, ifMatch: etag })).data);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const nameErrors = errorsAt(error, '/name');
  return (
    <form onSubmit={save} aria-label={initial ? `Edit Configuration ${initial.name}` : 'Create a Configuration'} noValidate>
      <Field id="configuration-name" label="Name" errors={nameErrors}>
        <input
          {...fieldAria('configuration-name', { errors: nameErrors })}
          required
          maxLength={200}
          autocomplete="off"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </Field>
      <JsonValuesField
        id="configuration-values"
        text={valuesText}
        onInput={(text) => {
          setValuesText(text);
          setSyntax(null);
        }}
        syntax={syntax}
        serverErrors={detailsUnder(error, '/values')}
        textareaRef={valuesRef}
      />
      <SecretBindingsEditor rows={rows} onChange={setRows} secrets={secrets} problems={problems} error={error} />
      {isStale(error) ? (
        <StaleNotice what="This Configuration" onReload={onReload} />
      ) : error ? (
        <ErrorMessage error={error} context={initial ? 'The Configuration was not saved' : 'The Configuration was not created'} />
      ) : null}
      <div class="button-row">
        <button type="submit" class="button-primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Saving…' : initial ? 'Save Configuration' : 'Create Configuration'}
        </button>
      </div>
    </form>
  );
}
