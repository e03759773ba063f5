import type { Ref } from 'preact';
import { humanPointer } from '@occ/contracts';
import { detailWords } from '../ui/api-errors.ts';

export interface JsonSyntaxProblem {
  message: string;
  line: number;
  column: number;
}

const HELP = 'The native configuration, as one JSON object. Its JSON syntax is checked here before anything is sent; the server checks the rest.';

/**
 * The Configuration's `values` as JSON text: a labelled monospace textarea with the syntax error
 * found on the client (line and column) or the server's errors under /values, each with the
 * pointer it names — values nest, so "wrong type" alone would not say where.
 */
export function JsonValuesField({
  id,
  text,
  onInput,
  syntax,
  serverErrors,
  textareaRef,
}: {
  id: string;
  text: string;
  onInput: (text: string) => void;
  syntax: JsonSyntaxProblem | null;
  serverErrors: readonly { path: string; code: string }[];
  textareaRef: Ref<HTMLTextAreaElement>;
}) {
  const invalid = syntax !== null || serverErrors.length > 0;
  return (
    <div class={invalid ? 'field field-wide field-invalid' : 'field field-wide'}>
      <label for={id}>Values (JSON)</label>
      <textarea
        id={id}
        ref={textareaRef}
        class="code"
        rows={18}
        spellcheck={false}
        autocomplete="off"
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={invalid ? `${id}-help ${id}-error` : `${id}-help`}
        value={text}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <p id={`${id}-help`} class="help">
        {HELP}
      </p>
      {invalid ? (
        <div id={`${id}-error`} class="field-error">
          {syntax ? (
            <p>
              Not valid JSON at line {syntax.line}, column {syntax.column}: {syntax.message}
            </p>
          ) : null}
          {serverErrors.length > 0 ? (
            <ul>
              {serverErrors.map((detail) => (
                <li key={`${detail.path}:${detail.code}`}>
                  <code>{humanPointer(detail.path)}</code> — {detailWords(detail.code)}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
