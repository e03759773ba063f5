import { diffCounts, diffHunks, diffLines } from './line-diff.ts';

/**
 * Two texts' differences as a list of lines. Each changed line says "Added" or "Removed" in words
 * for screen readers and carries a visible + or − sign, so colour is never the only cue.
 */
export function LineDiffView({ before, after, label }: { before: string; after: string; label: string }) {
  const lines = diffLines(before, after);
  const counts = diffCounts(lines);
  if (counts.added === 0 && counts.removed === 0) return <p>No differences.</p>;
  return (
    <>
      <p>
        {counts.added} {counts.added === 1 ? 'line' : 'lines'} added, {counts.removed} removed.
      </p>
      <ol class="diff-list" aria-label={label}>
        {diffHunks(lines).map((item, index) =>
          item.kind === 'skipped' ? (
            <li key={index} class="diff-skipped">
              … {item.count} unchanged {item.count === 1 ? 'line' : 'lines'}
            </li>
          ) : (
            <li key={index} class={`diff-line diff-${item.kind}`}>
              <span class="diff-sign" aria-hidden="true">
                {item.kind === 'added' ? '+' : item.kind === 'removed' ? '−' : ' '}
              </span>
              {item.kind === 'same' ? null : <span class="visually-hidden">{item.kind === 'added' ? 'Added: ' : 'Removed: '}</span>}
              <code>{item.text}</code>
            </li>
          ),
        )}
      </ol>
    </>
  );
}
