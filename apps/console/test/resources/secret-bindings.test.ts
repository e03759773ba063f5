import { describe, expect, it } from 'vitest';
import { bindingsFromRows, newBindingRow, rowsFromBindings } from '../../src/resources/secret-bindings.ts';

describe('Secret bindings rows', () => {
  it('round-trips the API map', () => {
    const map = { GITHUB_TOKEN: { secretId: 'secret_1' }, API_KEY: { secretId: 'secret_2' } };
    const rows = rowsFromBindings(map);
    expect(new Set(rows.map((row) => row.key)).size).toBe(2);
    expect(bindingsFromRows(rows)).toEqual({ bindings: map, problems: new Map() });
  });

  it('ignores an empty row and trims names', () => {
    expect(bindingsFromRows([newBindingRow(), newBindingRow(' TOKEN ', 'secret_1')]).bindings).toEqual({ TOKEN: { secretId: 'secret_1' } });
  });

  it('names each row problem with the API detail codes', () => {
    const rows = [newBindingRow('lower', 'secret_1'), newBindingRow('A', ''), newBindingRow('', 'secret_2'), newBindingRow('A', 'secret_3')];
    const { bindings, problems } = bindingsFromRows(rows);
    expect(bindings).toEqual({});
    expect(problems.get(rows[0]!.key)).toEqual({ env: ['INVALID_FORMAT'], secret: [] });
    expect(problems.get(rows[1]!.key)).toEqual({ env: [], secret: ['REQUIRED'] });
    expect(problems.get(rows[2]!.key)).toEqual({ env: ['REQUIRED'], secret: [] });
    expect(problems.get(rows[3]!.key)).toEqual({ env: ['DUPLICATE_VALUE'], secret: [] });
  });
});
