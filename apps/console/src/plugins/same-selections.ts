import type { Approver, PluginMap } from '@occ/contracts';

/**
 * Whether two plugin maps say the same thing. Key order carries no meaning in the API (editing
 * can reorder keys), so objects are compared by sorted keys; array order (approvers) does count.
 */
export function sameSelections(a: PluginMap, b: PluginMap): boolean {
  return canonical(a) === canonical(b);
}

/** Whether two Agent-wide approver lists say the same thing: null (none configured) differs from [] (nobody); order counts. */
export function sameApprovers(a: readonly Approver[] | null, b: readonly Approver[] | null): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, child]) => child !== undefined);
    return `{${entries
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([key, child]) => `${JSON.stringify(key)}:${canonical(child)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
