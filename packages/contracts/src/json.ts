/** A JSON object: not null, not an array. The one test of that shape every reader of untyped JSON uses. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
