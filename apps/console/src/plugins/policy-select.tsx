import type { ComponentChildren } from 'preact';
import { detailWords } from '../ui/api-errors.ts';
import { Field, fieldAria } from '../ui/field.tsx';
import { INHERIT } from './selection-updates.ts';

/**
 * One policy control as a native select: "inherit" first (the field omitted), then every value
 * of the vocabulary. A value the driver does not support at this scope stays listed but disabled
 * with "(unsupported)" — unless it is the saved value, which stays selectable so the user sees it
 * and can move off it (the pre-save check marks it).
 */
export function PolicySelect<V extends string>({
  id,
  label,
  value,
  values,
  allowed,
  words,
  inheritLabel,
  errors,
  onChange,
  compact = false,
}: {
  id: string;
  label: string;
  value: V | undefined;
  values: readonly V[];
  /** null: the capabilities are not known, so nothing is marked unsupported. */
  allowed: readonly V[] | null;
  words: Record<V, string>;
  inheritLabel: string;
  errors: readonly string[];
  onChange: (next: V | undefined) => void;
  compact?: boolean;
}) {
  return (
    <ControlField id={id} label={label} errors={errors} compact={compact}>
      <select
        {...fieldAria(id, { errors })}
        value={value ?? INHERIT}
        onChange={(event) => onChange(event.currentTarget.value === INHERIT ? undefined : (event.currentTarget.value as V))}
      >
        <option value={INHERIT}>{inheritLabel}</option>
        {values.map((option) => {
          const supported = allowed === null || allowed.includes(option);
          return (
            <option key={option} value={option} disabled={!supported && option !== value}>
              {words[option]} ({option}){supported ? '' : ' (unsupported)'}
            </option>
          );
        })}
      </select>
    </ControlField>
  );
}

/** Enabled as three choices, because "not set" (inherit) differs from "off". */
export function TriStateSelect({
  id,
  label,
  value,
  inheritLabel,
  errors,
  onChange,
  compact = false,
}: {
  id: string;
  label: string;
  value: '' | 'on' | 'off';
  inheritLabel: string;
  errors: readonly string[];
  onChange: (next: '' | 'on' | 'off') => void;
  compact?: boolean;
}) {
  return (
    <ControlField id={id} label={label} errors={errors} compact={compact}>
      <select {...fieldAria(id, { errors })} value={value} onChange={(event) => onChange(event.currentTarget.value as '' | 'on' | 'off')}>
        <option value={INHERIT}>{inheritLabel}</option>
        <option value="on">On</option>
        <option value="off">Off</option>
      </select>
    </ControlField>
  );
}

/**
 * The shared Field, or — inside a table row, where the column header shows the label — the same
 * structure with the label kept for screen readers only (it names the tool, so it is unique).
 */
function ControlField({ id, label, errors, compact, children }: { id: string; label: string; errors: readonly string[]; compact: boolean; children: ComponentChildren }) {
  if (!compact)
    return (
      <Field id={id} label={label} errors={errors}>
        {children}
      </Field>
    );
  return (
    <div class={errors.length > 0 ? 'cell-field field-invalid' : 'cell-field'}>
      <label for={id} class="visually-hidden">
        {label}
      </label>
      {children}
      {errors.length > 0 ? (
        <p id={`${id}-error`} class="field-error">
          {errors.map(detailWords).join(' ')}
        </p>
      ) : null}
    </div>
  );
}
