import { describe, expect, it } from 'vitest';
import { diffCounts, diffHunks, diffLines } from '../../src/resources/line-diff.ts';
import { stableJson } from '../../src/resources/stable-json.ts';

const kinds = (before: string, after: string) => diffLines(before, after).map((line) => `${line.kind[0]} ${line.text}`);

describe('line diff of two snapshots', () => {
  it('equal texts are all unchanged lines', () => {
    expect(kinds('a\nb', 'a\nb')).toEqual(['s a', 's b']);
  });

  it('a changed line is removed then added, between unchanged neighbours', () => {
    expect(kinds('a\nb\nc', 'a\nB\nc')).toEqual(['s a', 'r b', 'a B', 's c']);
  });

  it('insertions and deletions keep the longest common run', () => {
    expect(kinds('a\nb\nc\nd', 'a\nc\nd\ne')).toEqual(['s a', 'r b', 's c', 's d', 'a e']);
    expect(kinds('x\ny', 'p\nx\nq\ny\nr')).toEqual(['a p', 's x', 'a q', 's y', 'a r']);
  });

  it('from or to nothing', () => {
    expect(diffCounts(diffLines('', 'a\nb'))).toEqual({ added: 2, removed: 1 });
    expect(kinds('a', '')).toEqual(['r a', 'a ']);
  });

  it('replays: the unchanged and removed lines are the old text, unchanged and added the new one', () => {
    const before = stableJson({ plugins: { a: { enabled: true }, b: { enabled: false } }, harness: 'openclaw', list: [1, 2, 3] });
    const after = stableJson({ plugins: { a: { enabled: false }, c: { enabled: true } }, harness: 'openclaw', list: [1, 3, 4] });
    const lines = diffLines(before, after);
    expect(
      lines
        .filter((l) => l.kind !== 'added')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(before);
    expect(
      lines
        .filter((l) => l.kind !== 'removed')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(after);
  });

  it('a change too large for the table is shown as replaced whole, quickly', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join('\n');
    const started = performance.now();
    expect(diffCounts(diffLines(before, after))).toEqual({ added: 3000, removed: 3000 });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('hunks', () => {
  it('keeps context around changes and counts the unchanged lines it skips', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const after = [...before];
    after[10] = 'changed';
    const items = diffHunks(diffLines(before.join('\n'), after.join('\n')), 2);
    expect(items).toEqual([
      { kind: 'skipped', count: 8 },
      { kind: 'same', text: 'line 8' },
      { kind: 'same', text: 'line 9' },
      { kind: 'removed', text: 'line 10' },
      { kind: 'added', text: 'changed' },
      { kind: 'same', text: 'line 11' },
      { kind: 'same', text: 'line 12' },
      { kind: 'skipped', count: 7 },
    ]);
  });

  it('no change: one skipped run', () => {
    expect(diffHunks(diffLines('a\nb', 'a\nb'))).toEqual([{ kind: 'skipped', count: 2 }]);
  });
});

describe('stable JSON', () => {
  it('sorts keys at every depth, keeps array order, keeps __proto__ as data', () => {
    const value = JSON.parse('{"b":1,"a":{"z":[{"y":1,"x":2}],"__proto__":{"k":1}}}');
    expect(stableJson(value)).toBe(JSON.stringify({ a: JSON.parse('{"__proto__":{"k":1},"z":[{"x":2,"y":1}]}'), b: 1 }, null, 2));
    expect(Object.keys(JSON.parse(stableJson(value)).a)).toEqual(['__proto__', 'z']);
  });
});
