/**
 * A line diff of two texts (longest common subsequence), small enough to read and good enough for
 * snapshots of a few hundred lines. The common head and tail are taken off first, so the table is
 * only as large as the changed middle; past MAX_CELLS the middle is shown as replaced whole rather
 * than freezing the page.
 */
export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };
export type DiffItem = DiffLine | { kind: 'skipped'; count: number };

const MAX_CELLS = 4_000_000;

const line =
  (kind: DiffLine['kind']) =>
  (text: string): DiffLine => ({ kind, text });

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return [...a.slice(0, start).map(line('same')), ...diffMiddle(a.slice(start, endA), b.slice(start, endB)), ...a.slice(endA).map(line('same'))];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map(line('removed')), ...b.map(line('added'))];
  // common[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const width = m + 1;
  const common = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      common[i * width + j] = a[i] === b[j] ? common[(i + 1) * width + j + 1]! + 1 : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i++]! });
      j++;
    } else if (common[(i + 1) * width + j]! >= common[i * width + j + 1]!) {
      out.push({ kind: 'removed', text: a[i++]! });
    } else {
      out.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < n) out.push({ kind: 'removed', text: a[i++]! });
  while (j < m) out.push({ kind: 'added', text: b[j++]! });
  return out;
}

/** The changes with `context` unchanged lines around each; longer unchanged runs become one "skipped" item. */
export function diffHunks(lines: readonly DiffLine[], context = 3): DiffItem[] {
  const near = lines.map(() => false);
  lines.forEach((item, index) => {
    if (item.kind === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true;
  });
  const out: DiffItem[] = [];
  let skipped = 0;
  lines.forEach((item, index) => {
    if (near[index]) {
      if (skipped > 0) out.push({ kind: 'skipped', count: skipped });
      skipped = 0;
      out.push(item);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) out.push({ kind: 'skipped', count: skipped });
  return out;
}

export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  return { added: lines.filter((item) => item.kind === 'added').length, removed: lines.filter((item) => item.kind === 'removed').length };
}
