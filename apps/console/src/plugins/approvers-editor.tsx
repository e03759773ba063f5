import type { Approver } from '@occ/contracts';
import { useRef, useState } from 'preact/hooks';
import { Field, fieldAria } from '../ui/field.tsx';
import { detailWords } from '../ui/api-errors.ts';
import { errorsExactly, errorsUnder } from './plugin-errors.ts';
import { controlId } from './plugin-pointer.ts';

const CHANNEL_HELP = 'Lowercase letters, digits, - or _, e.g. slack.';

/** The words of the three-way choice; given only where the scope is edited as one (the Agent-wide list). */
export interface ApproversChoiceWords {
  /** The field omitted (`undefined` here; the caller maps it, e.g. to the Agent's `null`). */
  unset: string;
  /** `[]`. */
  nobody: string;
  /** A non-empty list. */
  list: string;
}

export interface ApproversEditorProps {
  label: string;
  path: string;
  approvers: Approver[] | undefined;
  onChange: (next: Approver[] | undefined) => void;
  saveError: unknown;
  /**
   * Without it (plugin and tool scopes): one checkbox, off = omitted. With it: three radio
   * buttons — not set / nobody / these approvers — so `[]` is a choice of its own, not an
   * empty list that merely looks unfinished.
   */
  choice?: ApproversChoiceWords;
}

type Mode = 'unset' | 'nobody' | 'list';

/**
 * Who may approve at one scope (the Agent, a plugin, or one tool): rows of channel + id. Not set
 * means the field is omitted (the wider scope's approvers apply, or none at the Agent); set with
 * no rows is the meaningful `[]` (nobody may approve here), so it is said in words.
 */
export function ApproversEditor({ label, path, approvers, onChange, saveError, choice }: ApproversEditorProps) {
  const toggleId = controlId('approvers-set', path);
  const listErrors = errorsExactly(saveError, path);
  const rows = approvers ?? [];
  // "These approvers" with its last row removed is still that choice on screen (saved as []):
  // the radio does not jump to "nobody" under the person's hands. Only while the value is the one
  // this editor last sent — a value from outside (discard, reload) is shown as what it is.
  const [listing, setListing] = useState(false);
  const lastSent = useRef<Approver[] | undefined | null>(null);
  const send = (next: Approver[] | undefined) => {
    lastSent.current = next;
    onChange(next);
  };
  const mode: Mode = approvers === undefined ? 'unset' : rows.length > 0 || (listing && approvers === lastSent.current) ? 'list' : 'nobody';
  const setRow = (index: number, patch: Partial<Approver>) => send(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  const choose = (next: Mode) => {
    setListing(next === 'list');
    if (next === 'unset') send(undefined);
    else if (next === 'nobody') send([]);
    else send(rows.length > 0 ? rows : [{ channel: '', id: '' }]);
  };
  const describedBy = listErrors.length > 0 ? `${toggleId}-error` : undefined;
  return (
    <fieldset class={listErrors.length > 0 ? 'approvers field-invalid' : 'approvers'}>
      <legend>{label}</legend>
      {choice ? (
        <div class="approvers-choice">
          {(['unset', 'nobody', 'list'] as const).map((option) => {
            const optionId = `${toggleId}-${option}`;
            return (
              <div class="check-row" key={option}>
                <input type="radio" id={optionId} name={toggleId} value={option} checked={mode === option} onChange={() => choose(option)} aria-describedby={describedBy} />
                <label for={optionId}>{choice[option]}</label>
              </div>
            );
          })}
        </div>
      ) : (
        <div class="check-row">
          <input
            type="checkbox"
            id={toggleId}
            checked={approvers !== undefined}
            onChange={(event) => send(event.currentTarget.checked ? [] : undefined)}
            aria-describedby={describedBy}
          />
          <label for={toggleId}>Set approvers here (otherwise the wider scope's approvers apply)</label>
        </div>
      )}
      {listErrors.length > 0 ? (
        <p id={`${toggleId}-error`} class="field-error">
          {listErrors.map(detailWords).join(' ')}
        </p>
      ) : null}
      {!choice && approvers !== undefined && rows.length === 0 ? <p class="help">Nobody may approve here.</p> : null}
      {choice && mode === 'list' && rows.length === 0 ? <p class="help">No approvers listed: saved like this, nobody may approve. Add one below.</p> : null}
      {rows.map((row, index) => {
        const rowPath = `${path}/${index}`;
        const channelPath = `${rowPath}/channel`;
        const idPath = `${rowPath}/id`;
        const channelId = controlId('approver-channel', channelPath);
        const idId = controlId('approver-id', idPath);
        const channelErrors = errorsUnder(saveError, channelPath);
        const idErrors = [...errorsUnder(saveError, idPath), ...errorsExactly(saveError, rowPath)];
        return (
          // biome-ignore lint/a11y/useSemanticElements: same semantics as a <fieldset> without the browser's fieldset border, padding and min-width
          <div class="approver-row" key={index} role="group" aria-label={`Approver ${index + 1}`}>
            <Field id={channelId} label={`Channel (approver ${index + 1})`} help={CHANNEL_HELP} errors={channelErrors}>
              <input
                {...fieldAria(channelId, { help: CHANNEL_HELP, errors: channelErrors })}
                required
                maxLength={32}
                value={row.channel}
                onInput={(event) => setRow(index, { channel: event.currentTarget.value })}
              />
            </Field>
            <Field id={idId} label={`Id (approver ${index + 1})`} errors={idErrors}>
              <input {...fieldAria(idId, { errors: idErrors })} required maxLength={256} value={row.id} onInput={(event) => setRow(index, { id: event.currentTarget.value })} />
            </Field>
            <button type="button" class="button-quiet" onClick={() => send(rows.filter((_, at) => at !== index))}>
              Remove approver {index + 1}
            </button>
          </div>
        );
      })}
      {approvers !== undefined && (!choice || mode === 'list') ? (
        <button type="button" onClick={() => send([...rows, { channel: '', id: '' }])} disabled={rows.length >= 64}>
          Add approver
        </button>
      ) : null}
    </fieldset>
  );
}
