import type { Approver } from '@occ/contracts';
import { Field, fieldAria } from '../ui/field.tsx';
import { detailWords } from '../ui/api-errors.ts';
import { errorsExactly, errorsUnder } from './plugin-errors.ts';
import { controlId } from './plugin-pointer.ts';

const CHANNEL_HELP = 'Lowercase letters, digits, - or _, e.g. slack.';

/**
 * Who may approve at one scope (a plugin, or one tool): rows of channel + id. Off means the
 * field is omitted and the wider scope's approvers apply; on with no rows is the meaningful `[]`
 * (nobody may approve here), so it is said in words.
 */
export function ApproversEditor({ label, path, approvers, onChange, saveError }: { label: string; path: string; approvers: Approver[] | undefined; onChange: (next: Approver[] | undefined) => void; saveError: unknown }) {
  const toggleId = controlId('approvers-set', path);
  const listErrors = errorsExactly(saveError, path);
  const rows = approvers ?? [];
  const setRow = (index: number, patch: Partial<Approver>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <fieldset class="approvers">
      <legend>{label}</legend>
      <div class="check-row">
        <input type="checkbox" id={toggleId} checked={approvers !== undefined} onChange={(event) => onChange(event.currentTarget.checked ? [] : undefined)} aria-describedby={listErrors.length > 0 ? `${toggleId}-error` : undefined} />
        <label for={toggleId}>Set approvers here (otherwise the wider scope's approvers apply)</label>
      </div>
      {listErrors.length > 0 ? <p id={`${toggleId}-error`} class="field-error">{listErrors.map(detailWords).join(' ')}</p> : null}
      {approvers !== undefined && rows.length === 0 ? <p class="help">Nobody may approve here.</p> : null}
      {rows.map((row, index) => {
        const rowPath = `${path}/${index}`;
        const channelPath = `${rowPath}/channel`;
        const idPath = `${rowPath}/id`;
        const channelId = controlId('approver-channel', channelPath);
        const idId = controlId('approver-id', idPath);
        const channelErrors = errorsUnder(saveError, channelPath);
        const idErrors = [...errorsUnder(saveError, idPath), ...errorsExactly(saveError, rowPath)];
        return (
          <div class="approver-row" key={index} role="group" aria-label={`Approver ${index + 1}`}>
            <Field id={channelId} label={`Channel (approver ${index + 1})`} help={CHANNEL_HELP} errors={channelErrors}>
              <input {...fieldAria(channelId, { help: CHANNEL_HELP, errors: channelErrors })} required maxLength={32} value={row.channel} onInput={(event) => setRow(index, { channel: event.currentTarget.value })} />
            </Field>
            <Field id={idId} label={`Id (approver ${index + 1})`} errors={idErrors}>
              <input {...fieldAria(idId, { errors: idErrors })} required maxLength={256} value={row.id} onInput={(event) => setRow(index, { id: event.currentTarget.value })} />
            </Field>
            <button type="button" class="button-quiet" onClick={() => onChange(rows.filter((_, at) => at !== index))}>
              Remove approver {index + 1}
            </button>
          </div>
        );
      })}
      {approvers !== undefined ? (
        <button type="button" onClick={() => onChange([...rows, { channel: '', id: '' }])} disabled={rows.length >= 64}>
          Add approver
        </button>
      ) : null}
    </fieldset>
  );
}
