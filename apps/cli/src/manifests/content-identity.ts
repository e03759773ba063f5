import type { ObjectPlan } from './object-plan.ts';
import { sameJson } from './same-json.ts';

/**
 * The plan of an object that has no name (a binding, a restriction): it is everything it says, so
 * one saying the same exists (unchanged) or not (created); it is never configured.
 */
export function planByContent<T extends { id: string }>(
  ref: string,
  desired: Record<string, unknown>,
  existing: readonly T[],
  content: (item: T) => Record<string, unknown>,
  create: () => Promise<string>,
): ObjectPlan {
  const same = existing.find((item) => sameJson(content(item), desired));
  return { ref, id: same?.id ?? null, live: same ? desired : null, desired, create };
}
