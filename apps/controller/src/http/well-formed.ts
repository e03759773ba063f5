import type { ErrorDetail } from '@occ/contracts';
import { escapePointerSegment } from '@occ/policy';

const MAX_JSON_DEPTH = 64;

const storable = (s: string) => !s.includes('\u0000') && s.isWellFormed();

/**
 * What PostgreSQL (and a sane API) cannot keep: strings or keys with NUL or unpaired UTF-16
 * surrogates, and nesting beyond MAX_JSON_DEPTH. Iterative, so no input can exhaust the stack.
 * Returns the first problem's pointer, or null.
 */
export function firstUnstorable(body: unknown): ErrorDetail | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) return { path, code: 'INVALID_VALUE' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { path, code: 'TOO_DEEP' };
    for (const [key, child] of Object.entries(value)) {
      // A bad key is reported at its parent: echoing it in the pointer would carry it back out.
      if (!storable(key)) return { path, code: 'INVALID_VALUE' };
      stack.push({ value: child, path: `${path}/${escapePointerSegment(key)}`, depth: depth + 1 });
    }
  }
  return null;
}
