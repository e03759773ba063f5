import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/output/unified-diff.ts';

const labels = { from: 'a (server)', to: 'a (file)' };
const lines = (n: number, change: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`)
    .map((l) => `${l}\n`)
    .join('');

describe('unified diff (occ diff)', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff(lines(5), lines(5), labels)).toBe('');
  });

  it('shows a change with 3 lines of context, as diff -u numbers it', () => {
    expect(unifiedDiff(lines(10), lines(10, { 5: 'five' }), labels)).toBe(
      '--- a (server)\n+++ a (file)\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8\n',
    );
  });

  it('joins changes at most 6 lines apart into one hunk and splits farther ones', () => {
    const joined = unifiedDiff(lines(20), lines(20, { 3: 'x', 10: 'y' }), labels);
    expect(joined.match(/^@@.*$/gm)).toEqual(['@@ -1,13 +1,13 @@']);
    const split = unifiedDiff(lines(20), lines(20, { 3: 'x', 11: 'y' }), labels);
    expect(split.match(/^@@.*$/gm)).toEqual(['@@ -1,6 +1,6 @@', '@@ -8,7 +8,7 @@']);
  });

  it('a new object is all added lines; a removed one all removed lines', () => {
    expect(unifiedDiff('', 'name: x\n', { from: '/dev/null', to: 'x' })).toBe('--- /dev/null\n+++ x\n@@ -0,0 +1,1 @@\n+name: x\n');
    expect(unifiedDiff('a\nb\n', '', labels)).toBe('--- a (server)\n+++ a (file)\n@@ -1,2 +0,0 @@\n-a\n-b\n');
  });

  it('finds a shortest edit (an insertion in the middle is one added line)', () => {
    const diff = unifiedDiff('a\nb\nc\nd\n', 'a\nb\nX\nc\nd\n', labels);
    expect(diff.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['+X']);
  });

  it('a wholly rewritten long text is shown removed then added, without the quadratic search', () => {
    const before = Array.from({ length: 1500 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: 1500 }, (_, i) => `new ${i}\n`).join('');
    const diff = unifiedDiff(before, after, labels).split('\n');
    expect(diff[2]).toBe('@@ -1,1500 +1,1500 @@');
    expect(diff[3]).toBe('-old 0');
    expect(diff[1503]).toBe('+new 0');
  });
});
