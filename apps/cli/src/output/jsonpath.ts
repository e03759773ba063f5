/**
 * The small part of kubectl's JSONPath that `-o jsonpath=…` supports: templates of literal text
 * and `{…}` paths built from `.field`, `['field']` (any key, e.g. a plugin key with a slash),
 * `[N]` (negative counts from the end) and `[*]`. No filters, slices, recursion or `{range}`:
 * those are refused with the column they start at, rather than half-evaluated.
 */

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' };
type Part = { kind: 'text'; text: string } | { kind: 'path'; steps: Step[] };

export class JsonPathError extends Error {}

const SUPPORTED = "supported: {.a.b}, {.items[*].name}, {.items[0].id}, {.plugins['openclaw:llm-task']}";

/** Parses a template such as `{.items[*].name}`; throws JsonPathError naming what is unsupported. */
export function parseJsonPath(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  const fail = (what: string, at: number): never => {
    throw new JsonPathError(`${what} at column ${at + 1} of ${JSON.stringify(template)} (${SUPPORTED})`);
  };
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (close !== -1 && (open === -1 || close < open)) fail('unmatched "}"', close);
    if (open === -1) {
      parts.push({ kind: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) parts.push({ kind: 'text', text: template.slice(i, open) });
    const end = template.indexOf('}', open);
    if (end === -1) fail('unclosed "{"', open);
    parts.push({ kind: 'path', steps: parseSteps(template.slice(open + 1, end), open + 1, fail) });
    i = end + 1;
  }
  if (!parts.some((p) => p.kind === 'path')) fail('no {…} path', 0);
  return parts;
}

function parseSteps(expression: string, offset: number, fail: (what: string, at: number) => never): Step[] {
  const text = expression.trim();
  const lead = offset + expression.indexOf(text);
  if (/^(range|end)\b/.test(text)) fail(`{${text.split(/\s/)[0]}} is not supported`, lead);
  if (!text.startsWith('.') && !text.startsWith('[')) fail(`a path starts with "." (got ${JSON.stringify(text.slice(0, 20))})`, lead);
  const steps: Step[] = [];
  let i = 0;
  while (i < text.length) {
    const at = lead + i;
    if (text.startsWith('..', i)) fail('recursive descent ".." is not supported', at);
    if (text[i] === '.') {
      const name = /^[A-Za-z0-9_:-]*/.exec(text.slice(i + 1))![0];
      // `{.}` is the whole document; a field name otherwise.
      if (name === '' && i + 1 < text.length) fail(`unexpected ${JSON.stringify(text[i + 1])}`, at + 1);
      if (name !== '') steps.push({ kind: 'field', name });
      i += 1 + name.length;
      continue;
    }
    if (text[i] === '[') {
      const close = text.indexOf(']', i);
      if (close === -1) fail('unclosed "["', at);
      const inside = text.slice(i + 1, close).trim();
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inside);
      if (inside === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inside)) steps.push({ kind: 'index', index: Number(inside) });
      else if (quoted) steps.push({ kind: 'field', name: quoted[1] ?? quoted[2]! });
      else fail(`[${inside}] is not supported (filters, slices and unions are not)`, at);
      i = close + 1;
      continue;
    }
    fail(`unexpected ${JSON.stringify(text[i])}`, at);
  }
  return steps;
}

/** Every value a path reaches: `[*]` fans out, a missing field or index reaches nothing. */
function evaluate(steps: Step[], root: unknown): unknown[] {
  let values: unknown[] = [root];
  for (const step of steps) {
    values = values.flatMap((value): unknown[] => {
      if (step.kind === 'all') {
        if (Array.isArray(value)) return value;
        return value !== null && typeof value === 'object' ? Object.values(value) : [];
      }
      if (step.kind === 'index') {
        if (!Array.isArray(value)) return [];
        const found = value.at(step.index);
        return found === undefined ? [] : [found];
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step.name)) return [];
      return [(value as Record<string, unknown>)[step.name]];
    });
  }
  return values;
}

/** Strings as they are, anything else as JSON; several results joined by a space, as kubectl does. */
function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The template applied to `data`; a path that reaches nothing prints nothing (kubectl's default). */
export function renderJsonPath(parts: Part[], data: unknown): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : evaluate(part.steps, data).map(show).join(' '))).join('');
}
