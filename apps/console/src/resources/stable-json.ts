/**
 * JSON text with every object's keys sorted, two-space indented: the same content always gives
 * the same lines, so a diff of two snapshots shows what changed, never how the server ordered it.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  // fromEntries defines own properties, so a key named "__proto__" stays data.
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
}
