import type { Secret } from '@occ/contracts';
import { detailWords, errorsAt } from '../ui/api-errors.ts';
import { Field, fieldAria } from '../ui/field.tsx';
import { detailsUnder, pointerSegment } from './pointer-errors.ts';
import { newBindingRow, type BindingRow, type RowProblems } from './secret-bindings.ts';

const ENV_HELP = 'Capital letters, digits and _, not starting with a digit.';

/**
 * Rows of "environment variable ← Secret". A row's problems come from the client check first
 * (empty, malformed, duplicate) and otherwise from the server's pointers
 * /secretBindings/<NAME> (the name) and /secretBindings/<NAME>/secretId (the Secret).
 */
export function SecretBindingsEditor({
  rows,
  onChange,
  secrets,
  problems,
  error,
}: {
  rows: readonly BindingRow[];
  onChange: (rows: BindingRow[]) => void;
  secrets: readonly Secret[];
  problems: ReadonlyMap<number, RowProblems>;
  error: unknown;
}) {
  const update = (key: number, change: Partial<BindingRow>) => onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  // Errors about the map as a whole (too many bindings) name /secretBindings itself.
  const wholeErrors = detailsUnder(error, '/secretBindings')
    .filter((detail) => detail.path === '/secretBindings')
    .map((detail) => detailWords(detail.code));

  return (
    <fieldset aria-describedby="secret-bindings-help">
      <legend>Secret bindings</legend>
      <p id="secret-bindings-help" class="help">
        Each variable is set in the Agent's runtime from the value of a Secret of this Namespace.
      </p>
      {rows.length === 0 ? <p>No Secret binding.</p> : null}
      {rows.map((row, index) => {
        const pointer = `/secretBindings/${pointerSegment(row.env.trim())}`;
        const secretServer = errorsAt(error, `${pointer}/secretId`);
        const envServer = detailsUnder(error, pointer)
          .filter((detail) => !detail.path.startsWith(`${pointer}/secretId`))
          .map((detail) => detail.code);
        const own = problems.get(row.key);
        const envErrors = own ? own.env : row.env.trim() ? envServer : [];
        const secretErrors = own ? own.secret : row.env.trim() ? secretServer : [];
        const envId = `binding-${row.key}-env`;
        const secretId = `binding-${row.key}-secret`;
        const known = secrets.some((secret) => secret.id === row.secretId);
        return (
          // biome-ignore lint/a11y/useSemanticElements: same semantics as a <fieldset> without the browser's fieldset border, padding and min-width
          <div key={row.key} class="binding-row" role="group" aria-label={`Binding ${index + 1}`}>
            <Field id={envId} label="Environment variable" help={ENV_HELP} errors={envErrors}>
              <input
                {...fieldAria(envId, { help: ENV_HELP, errors: envErrors })}
                class="code-input"
                autocomplete="off"
                spellcheck={false}
                value={row.env}
                onInput={(event) => update(row.key, { env: event.currentTarget.value })}
              />
            </Field>
            <Field id={secretId} label="Secret" errors={secretErrors}>
              <select {...fieldAria(secretId, { errors: secretErrors })} value={row.secretId} onChange={(event) => update(row.key, { secretId: event.currentTarget.value })}>
                <option value="">Choose a Secret</option>
                {row.secretId && !known ? <option value={row.secretId}>{row.secretId} (not readable)</option> : null}
                {secrets.map((secret) => (
                  <option key={secret.id} value={secret.id}>
                    {secret.name}
                  </option>
                ))}
              </select>
            </Field>
            <button type="button" class="binding-remove" aria-label={`Remove binding ${index + 1}`} onClick={() => onChange(rows.filter((other) => other.key !== row.key))}>
              Remove
            </button>
          </div>
        );
      })}
      {wholeErrors.length > 0 ? <p class="field-error">{wholeErrors.join(' ')}</p> : null}
      <button type="button" onClick={() => onChange([...rows, newBindingRow()])}>
        Add a Secret binding
      </button>
    </fieldset>
  );
}
