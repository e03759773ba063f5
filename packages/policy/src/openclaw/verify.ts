import { isJsonObject } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { jsonEqual } from '../json.ts';
import type { OpenClawConfig } from './native-config.ts';

/** Native lists that OpenClaw (or the operator) may extend: the overlay's entries must all be there. */
const SUBSET_LISTS = new Set(['allow', 'alsoAllow', 'deny']);

/**
 * Compares the effective configuration read back from the runtime with the translation's overlay.
 * Objects are compared by the overlay's keys (the effective config has many more); `allow`,
 * `alsoAllow` and `deny` lists must contain the overlay's entries; every other value must be equal.
 * Returns the JSON pointers (into the native configuration) that do not match; `[]` when it does.
 */
export function verifyEffectiveConfig(effective: unknown, overlay: OpenClawConfig): string[] {
  const mismatches: string[] = [];
  compare(effective, overlay, [], mismatches);
  return mismatches;
}

function compare(actual: unknown, expected: unknown, path: string[], mismatches: string[]): void {
  const name = path.at(-1);
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) {
      mismatches.push(pointer(...path));
      return;
    }
    for (const key of Object.keys(expected)) {
      compare(Object.hasOwn(actual, key) ? actual[key] : undefined, expected[key], [...path, key], mismatches);
    }
  } else if (Array.isArray(expected) && name !== undefined && SUBSET_LISTS.has(name)) {
    const contained = Array.isArray(actual) && expected.every((item) => actual.some((found) => jsonEqual(found, item)));
    if (!contained) mismatches.push(pointer(...path));
  } else if (!jsonEqual(actual, expected)) {
    mismatches.push(pointer(...path));
  }
}
