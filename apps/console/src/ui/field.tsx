import type { ComponentChildren } from 'preact';
import { detailWords } from './api-errors.ts';

/**
 * A labelled control with its help and the server's errors for it. The control itself is the
 * child; it must carry `id={id}` and `aria-describedby={describedBy(id, …)}` (see fieldAria).
 */
export function Field({ id, label, help, errors = [], children }: { id: string; label: string; help?: string; errors?: readonly string[]; children: ComponentChildren }) {
  return (
    <div class={errors.length > 0 ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {help ? (
        <p id={`${id}-help`} class="help">
          {help}
        </p>
      ) : null}
      {errors.length > 0 ? (
        <p id={`${id}-error`} class="field-error">
          {errors.map(detailWords).join(' ')}
        </p>
      ) : null}
    </div>
  );
}

/** The ARIA attributes a Field's control carries, so a screen reader reads its help and errors. */
export function fieldAria(id: string, { help, errors = [] }: { help?: string; errors?: readonly string[] }) {
  const describedBy = [help ? `${id}-help` : null, errors.length > 0 ? `${id}-error` : null].filter(Boolean).join(' ');
  return { id, 'aria-invalid': errors.length > 0 ? 'true' : undefined, 'aria-describedby': describedBy || undefined } as const;
}
