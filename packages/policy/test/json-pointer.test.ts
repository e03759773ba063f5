import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapePointerSegment, parsePointer, pointer, unescapePointerSegment } from '../src/index.ts';

describe('JSON pointer (RFC 6901)', () => {
  it.each([
    ['plain', 'plain'],
    ['a/b', 'a~1b'],
    ['a~b', 'a~0b'],
    ['~1', '~01'],
    ['/~', '~1~0'],
    ['', ''],
  ])('escapes %j as %j', (raw, escaped) => {
    expect(escapePointerSegment(raw)).toBe(escaped);
    expect(unescapePointerSegment(escaped)).toBe(raw);
  });

  it('builds a pointer from raw segments and numbers', () => {
    expect(pointer('plugins', 'my/plugin', 'tools', 'x~y', 'approvers', 2)).toBe('/plugins/my~1plugin/tools/x~0y/approvers/2');
    expect(pointer()).toBe('');
  });

  it('round-trips any segments through pointer and parsePointer', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (segments) => {
        expect(parsePointer(pointer(...segments))).toEqual(segments);
      }),
    );
  });

  it.each(['plugins', '/a~2', '/a~'])('rejects the malformed pointer %j', (malformed) => {
    expect(() => parsePointer(malformed)).toThrow('Malformed JSON pointer.');
  });
});
