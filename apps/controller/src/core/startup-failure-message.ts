import type { AgentRevision, PolicyViolationCode, StartupFailureDetail } from '@occ/contracts';
import { parsePointer } from '@occ/policy';

/** What a violation says about the selection it names: the controller's words, never the runtime's text. */
const VIOLATION_WORDS: Readonly<Record<PolicyViolationCode, string>> = {
  UNSUPPORTED_VALUE: 'uses a value the runtime does not support',
  UNSUPPORTED_FIELD: 'uses a setting the runtime does not support',
  INVALID_VALUE: 'has a value the runtime refuses',
  INVALID_COMBINATION: 'conflicts with another selection or with the Configuration',
  DUPLICATE_PLUGIN: 'names the same plugin as another selection',
  DUPLICATE_VALUE: 'repeats a value',
};

/**
 * The stored (and served) message of a failed start: fixed text naming the code and, when the
 * runtime reported the selection that failed it, that selection and the reason, checked against
 * the revision (a selection it does not have, or a place not in that selection, is not named).
 */
export function startupFailureMessage(revision: AgentRevision, code: string, detail: StartupFailureDetail | undefined): string {
  const cause = detail ? describeDetail(revision, detail) : null;
  return cause ? `The runtime did not start (${code}): ${cause}.` : `The runtime did not start (${code}).`;
}

function describeDetail(revision: AgentRevision, { plugin, violation }: StartupFailureDetail): string | null {
  if (!Object.hasOwn(revision.plugins, plugin)) return null;
  const place = placeInSelection(revision.plugins[plugin], violation.at);
  if (place === null) return `plugin ${plugin} ${VIOLATION_WORDS[violation.code]}`;
  // The plan's two per-selection refusals (packages/policy/src/openclaw/catalog-membership.ts, plan.ts), in plain words.
  if (place.length === 0 && violation.code === 'UNSUPPORTED_VALUE') return `plugin ${plugin} is not in the runtime's plugin catalog`;
  if (place.length === 2 && place[0] === 'tools' && violation.code === 'INVALID_VALUE') return `plugin ${plugin} does not register the tool ${place[1]}`;
  return `plugin ${plugin}${place.length > 0 ? ` (${place.join('/')})` : ''} ${VIOLATION_WORDS[violation.code]}`;
}

/** The pointer's segments when each names a member of the selection as admitted; null otherwise. */
function placeInSelection(selection: unknown, at: string): string[] | null {
  let segments: string[];
  try {
    segments = parsePointer(at);
  } catch {
    return null;
  }
  let node = selection;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return null;
    node = (node as Record<string, unknown>)[segment];
  }
  return segments;
}
