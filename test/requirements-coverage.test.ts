import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { citations, refreshed, REQUIREMENTS_PATH } from '../scripts/requirements-coverage.ts';

describe('docs/requirements.md', () => {
  it('lists, for every requirement id, exactly the test files that cite it (run `npm run requirements` after adding a test)', () => {
    const document = readFileSync(REQUIREMENTS_PATH, 'utf8');
    expect(document).toBe(refreshed(document, citations()));
  });

  it('names every id a test cites (a typo in a title would cite nothing)', () => {
    const document = readFileSync(REQUIREMENTS_PATH, 'utf8');
    const listed = new Set([...document.matchAll(/^\| ([A-Z]-\d+) \|/gm)].map((m) => m[1]));
    expect([...citations().keys()].filter((id) => !listed.has(id))).toEqual([]);
  });
});
