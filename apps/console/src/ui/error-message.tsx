import { humanPointer } from '@occ/contracts';
import { describeError, detailWords } from './api-errors.ts';

/** A failed request in words: the server's message, its code, each field it named, the request id. */
export function ErrorMessage({ error, context }: { error: unknown; context?: string }) {
  const shown = describeError(error);
  return (
    <div class="error-message" role="alert">
      <p>
        {context ? <strong>{context}: </strong> : null}
        {shown.title}
        {shown.code ? <span class="muted"> ({shown.code})</span> : null}
      </p>
      {shown.details.length > 0 ? (
        <ul>
          {shown.details.map((detail) => (
            <li key={`${detail.path}:${detail.code}`}>
              <code>{humanPointer(detail.path)}</code> — {detailWords(detail.code)}
            </li>
          ))}
        </ul>
      ) : null}
      {shown.requestId ? <p class="muted small">Request {shown.requestId}</p> : null}
    </div>
  );
}
