import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Requirements whose proof is a documented limit: the row must exist in the deliberate-differences
// table and say what is not covered, so removing or hollowing it fails here.
const differences = readFileSync(new URL('../docs/specification-differences.md', import.meta.url), 'utf8');
const row = (id: string) => differences.split('\n').find((line) => line.startsWith(`| ${id} |`)) ?? '';

describe('documented limits of the Codex startup checks', () => {
  it('[X-20] names what startup checks do not cover: later workspace, session and model changes, and strict review', () => {
    expect(row('X-20')).toMatch(/workspace/);
    expect(row('X-20')).toMatch(/session/);
    expect(row('X-20')).toMatch(/model/);
    expect(row('X-20')).toMatch(/strict review/);
  });

  it('[X-21] names that the readback can miss managed requirements applied while running, so native introspection is still needed', () => {
    expect(row('X-21')).toMatch(/managed requirements/);
    expect(row('X-21')).toMatch(/introspection/);
  });
});
