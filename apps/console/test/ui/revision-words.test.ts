import { describe, expect, it } from 'vitest';
import { activeRevisionWords } from '../../src/ui/revision-words.ts';

const rev = 'rev_00000000-0000-4000-8000-000000000001';
const other = 'rev_00000000-0000-4000-8000-000000000002';

describe('the active revision in words (never its id)', () => {
  it('is its number once a read about that very revision carries it', () => {
    expect(activeRevisionWords(rev, { status: 'loaded', revisionId: rev, revision: 3 })).toBe('revision 3');
  });

  it('says none when the Agent has no active revision, whatever the read says', () => {
    expect(activeRevisionWords(null, { status: 'loaded', revisionId: null, revision: null })).toBe('none yet');
    expect(activeRevisionWords(null, { status: 'loaded', revisionId: rev, revision: 3 })).toBe('none yet');
  });

  it('never takes the number of another revision (a read from before the pointer moved), nor shows an id while waiting or after a failed read', () => {
    const shown = [
      activeRevisionWords(rev, { status: 'loaded', revisionId: other, revision: 2 }),
      activeRevisionWords(rev, { status: 'loading', revisionId: undefined, revision: undefined }),
      activeRevisionWords(rev, { status: 'error', revisionId: undefined, revision: undefined }),
    ];
    expect(shown).toEqual(['revision …', 'revision …', 'a revision whose number could not be read']);
    for (const words of shown) expect(words).not.toMatch(/rev_/);
  });
});
