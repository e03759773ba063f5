import type { Secret } from '@occ/contracts';
import { useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { errorsAt } from '../ui/api-errors.ts';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';

const VALUE_HELP = 'Write-only: it is never shown again.';

/** Replaces a Secret's value (write-only, uncontrolled input emptied after the request). */
export function SecretReplaceDialog({ ns, secret, onClose, onReplaced }: { ns: string; secret: Secret | null; onClose: () => void; onReplaced: (secret: Secret) => void }) {
  const { api } = useConsole();
  const valueInput = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    if (busy) return;
    setError(null);
    onClose();
  };
  const replace = async (event: Event) => {
    event.preventDefault();
    const input = valueInput.current;
    if (!input || !secret) return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.call('updateSecret', { params: { ns, id: secret.id }, body: { value: input.value } });
      onReplaced(data);
    } catch (failure) {
      setError(failure);
    } finally {
      input.value = '';
      setBusy(false);
    }
  };

  const valueErrors = errorsAt(error, '/value');
  return (
    <Dialog title="Replace the value" open={secret !== null} onClose={close}>
      <form onSubmit={replace} aria-label={`Replace the value of ${secret?.name ?? 'the Secret'}`}>
        <p>
          A new value for <strong>{secret?.name}</strong>. Agents get it when they are next deployed; the old value cannot be recovered.
        </p>
        <Field id="secret-new-value" label="New value" help={VALUE_HELP} errors={valueErrors}>
          <input
            {...fieldAria('secret-new-value', { help: VALUE_HELP, errors: valueErrors })}
            ref={valueInput}
            type="password"
            required
            autocomplete="new-password"
            spellcheck={false}
          />
        </Field>
        {error && valueErrors.length === 0 ? <ErrorMessage error={error} context="The value was not replaced" /> : null}
        <div class="button-row">
          <button type="submit" class="button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save new value'}
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
