/**
 * A unified diff (`diff -u`) of two texts, line by line, with 3 lines of context: what `occ diff`
 * prints per object. Myers' algorithm finds a shortest edit; past MAX_EDITS differing lines
 * (a wholly rewritten object) the old lines are shown removed and the new ones added, rather than
 * spending quadratic memory on the shortest way.
 */

type Edit = { op: ' ' | '-' | '+'; line: string };

const MAX_EDITS = 2000;
const CONTEXT = 3;

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The shortest edit script from `a` to `b` (Myers 1986), or a wholesale replace when it is too long. */
function editScript(a: string[], b: string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, offset);
    }
    v = next;
  }
  return [...a.map((line): Edit => ({ op: '-', line })), ...b.map((line): Edit => ({ op: '+', line }))];
}

/** Walks the rounds back from the end: each round is one edit preceded by a run of equal lines. */
function backtrack(a: string[], b: string[], trace: Int32Array[], offset: number): Edit[] {
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ op: ' ', line: a[x]! });
    }
    if (d === 0) break;
    if (x === prevX) edits.push({ op: '+', line: b[--y]! });
    else edits.push({ op: '-', line: a[--x]! });
  }
  return edits.reverse();
}

/** `--- from` / `+++ to` and the hunks; empty when the texts are equal. */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }): string {
  const a = linesOf(before);
  const b = linesOf(after);
  const edits = editScript(a, b);
  if (edits.every((edit) => edit.op === ' ')) return '';
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  // Positions of the changes; a hunk spans changes closer than 2 × CONTEXT lines, plus context.
  const changed = edits.flatMap((edit, i) => (edit.op === ' ' ? [] : [i]));
  let start = 0;
  while (start < changed.length) {
    let end = start;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! - 1 <= 2 * CONTEXT) end++;
    const from = Math.max(0, changed[start]! - CONTEXT);
    const to = Math.min(edits.length, changed[end]! + CONTEXT + 1);
    const oldStart = edits.slice(0, from).filter((e) => e.op !== '+').length;
    const newStart = edits.slice(0, from).filter((e) => e.op !== '-').length;
    const hunk = edits.slice(from, to);
    const oldCount = hunk.filter((e) => e.op !== '+').length;
    const newCount = hunk.filter((e) => e.op !== '-').length;
    // diff -u numbers an empty side as the line before it (0 for an empty file).
    out.push(`@@ -${oldCount === 0 ? oldStart : oldStart + 1},${oldCount} +${newCount === 0 ? newStart : newStart + 1},${newCount} @@`);
    out.push(...hunk.map((edit) => `${edit.op}${edit.line}`));
    start = end + 1;
  }
  return `${out.join('\n')}\n`;
}
