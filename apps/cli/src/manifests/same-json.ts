/** Deep equality of JSON values, where object key order does not count (PostgreSQL's jsonb reorders keys). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i]));
  const left = Object.keys(a);
  const right = b as Record<string, unknown>;
  return left.length === Object.keys(right).length && left.every((key) => Object.hasOwn(right, key) && sameJson((a as Record<string, unknown>)[key], right[key]));
}

/**
 * `value` with its object keys in the order `like` has them (its other keys after, sorted), so
 * two versions of an object print in the same order and a diff shows only what changed.
 */
export function orderLike(value: unknown, like: unknown): unknown {
  if (Array.isArray(value)) return value.map((item, i) => orderLike(item, Array.isArray(like) ? like[i] : undefined));
  if (typeof value !== 'object' || value === null) return value;
  const template = typeof like === 'object' && like !== null && !Array.isArray(like) ? Object.keys(like) : [];
  const record = value as Record<string, unknown>;
  const keys = [
    ...template.filter((key) => Object.hasOwn(record, key)),
    ...Object.keys(record)
      .filter((key) => !template.includes(key))
      .sort(),
  ];
  return Object.fromEntries(keys.map((key) => [key, orderLike(record[key], (like as Record<string, unknown> | undefined)?.[key])]));
}
