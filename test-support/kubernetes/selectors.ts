import { badRequest } from './status.ts';

type Labels = Record<string, string> | undefined;
type Requirement = (labels: Labels) => boolean;

/**
 * Parses a label selector as the API server's query parameter spells it: `a=b`, `a==b`, `a!=b`,
 * `a in (x,y)`, `a notin (x)`, `a` (exists), `!a` (does not exist), joined by commas.
 */
export function parseLabelSelector(selector: string | null): (labels: Labels) => boolean {
  if (!selector?.trim()) return () => true;
  const requirements = splitTopLevel(selector).map(parseRequirement);
  return (labels) => requirements.every((matches) => matches(labels));
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

function parseRequirement(text: string): Requirement {
  const set = /^([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(text);
  if (set) {
    const [, key, operator, list] = set as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((v) => v.trim()));
    return operator === 'in' ? (labels) => labels?.[key] !== undefined && values.has(labels[key]!) : (labels) => labels?.[key] === undefined || !values.has(labels[key]!);
  }
  const comparison = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=()]*)$/.exec(text);
  if (comparison) {
    const [, key, operator, value] = comparison as unknown as [string, string, string, string];
    return operator === '!=' ? (labels) => labels?.[key] !== value : (labels) => labels?.[key] === value;
  }
  const absent = /^!\s*([^\s!=()]+)$/.exec(text);
  if (absent) return (labels) => labels?.[absent[1]!] === undefined;
  if (/^[^\s!=()]+$/.test(text)) return (labels) => labels?.[text] !== undefined;
  throw badRequest(`unable to parse requirement: found '${text}', expected: in, notin, =, ==, !=, gt, lt`);
}

/** The field selectors the fake answers (the real server also refuses unsupported field labels). */
const FIELDS: Record<string, (object: any) => string | undefined> = {
  'metadata.name': (o) => o.metadata?.name,
  'metadata.namespace': (o) => o.metadata?.namespace,
  'status.phase': (o) => o.status?.phase,
  'status.podIP': (o) => o.status?.podIP,
  'spec.nodeName': (o) => o.spec?.nodeName,
};

export function parseFieldSelector(selector: string | null): (object: any) => boolean {
  if (!selector?.trim()) return () => true;
  const requirements = selector.split(',').map((part) => {
    const match = /^\s*([^\s!=]+)\s*(==|=|!=)\s*([^\s]*)\s*$/.exec(part);
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [, field, operator, value] = match as unknown as [string, string, string, string];
    const read = FIELDS[field];
    if (!read) throw badRequest(`field label not supported: ${field}`);
    return (object: any) => (operator === '!=' ? read(object) !== value : read(object) === value);
  });
  return (object) => requirements.every((matches) => matches(object));
}

/** A Deployment's `spec.selector` (matchLabels + matchExpressions) as a predicate on labels. */
export function labelSelectorMatcher(selector: any): (labels: Labels) => boolean {
  const exact = Object.entries<string>(selector?.matchLabels ?? {});
  const expressions: any[] = selector?.matchExpressions ?? [];
  return (labels) =>
    exact.every(([k, v]) => labels?.[k] === v) &&
    expressions.every((e) => {
      const value = labels?.[e.key];
      switch (e.operator) {
        case 'In':
          return value !== undefined && e.values.includes(value);
        case 'NotIn':
          return value === undefined || !e.values.includes(value);
        case 'Exists':
          return value !== undefined;
        case 'DoesNotExist':
          return value === undefined;
        default:
          return false;
      }
    });
}
