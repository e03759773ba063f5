import { HARNESSES, type Harness } from '@occ/contracts';
import { detailWords } from '../../ui/api-errors.ts';

const CHOICES: Record<Harness, { label: string; help: string }> = {
  openclaw: { label: 'OpenClaw', help: 'Plugins from the curated catalog.' },
  codex: { label: 'Codex', help: 'Curated and hosted plugins; hosted ones need a codex_pat Secret.' },
};

/** The harness as a native radio group: arrow keys move between choices, the legend names it. */
export function HarnessChoice({ value, onChange, errors }: { value: Harness; onChange: (next: Harness) => void; errors: readonly string[] }) {
  const errorId = 'agent-harness-error';
  return (
    <fieldset class={errors.length > 0 ? 'radio-group field-invalid' : 'radio-group'} aria-describedby={errors.length > 0 ? errorId : undefined}>
      <legend>Harness</legend>
      {HARNESSES.map((harness) => (
        // The name alone labels the radio; its help is its description, so the name stays short.
        <div key={harness} class="radio-choice">
          <input
            type="radio"
            id={`agent-harness-${harness}`}
            name="harness"
            value={harness}
            checked={value === harness}
            aria-describedby={`agent-harness-${harness}-help`}
            aria-invalid={errors.length > 0 ? 'true' : undefined}
            onChange={() => onChange(harness)}
          />
          <label for={`agent-harness-${harness}`}>{CHOICES[harness].label}</label>
          <span id={`agent-harness-${harness}-help`} class="muted small">
            {CHOICES[harness].help}
          </span>
        </div>
      ))}
      {errors.length > 0 ? (
        <p id={errorId} class="field-error">
          {errors.map(detailWords).join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
}
