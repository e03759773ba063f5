import type { PolicyViolation, StartupFailureDetail } from '@occ/contracts';
import { parsePointer, pointer } from '@occ/policy';

/**
 * The first violation that concerns one selection (`/plugins/<key>/…`), as a failure's detail:
 * the key and the violation's code and place inside the selection. Violations come sorted by
 * key, so the same selections always name the same one; none at a selection → no detail.
 */
export function policyFailureDetail(violations: readonly PolicyViolation[]): StartupFailureDetail | undefined {
  for (const { path, code } of violations) {
    let segments: string[];
    try {
      segments = parsePointer(path);
    } catch {
      continue;
    }
    const [root, plugin, ...inside] = segments;
    if (root !== 'plugins' || plugin === undefined) continue;
    return { plugin, violation: { code, at: pointer(...inside) } };
  }
  return undefined;
}
