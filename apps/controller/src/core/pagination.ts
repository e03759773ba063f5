import { DEFAULT_PAGE_SIZE } from '@occ/contracts';
import { invalid } from './errors.ts';
import type { PageRequest } from './ports/namespace-repository.ts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface ListQuery {
  limit?: number;
  cursor?: string;
}

/**
 * Cursors are opaque to clients: base64url of the list they belong to and the last key seen.
 * A cursor presented to another list is refused rather than silently misread.
 */
// Every key we page by is an id or a decimal position.
const CURSOR_KEY = /^[A-Za-z0-9_-]{1,100}$/;

function encodeCursor(list: string, after: string): string {
  return Buffer.from(JSON.stringify({ l: list, a: after }), 'utf8').toString('base64url');
}

function decodeCursor(list: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const after = (parsed as { a?: unknown } | null)?.a;
    if (parsed && typeof parsed === 'object' && (parsed as { l?: unknown }).l === list && typeof after === 'string' && CURSOR_KEY.test(after)) {
      return (parsed as { a: string }).a;
    }
  } catch {
    // fall through: any undecodable cursor is the same client error
  }
  throw invalid('The cursor is not valid for this list.', [{ path: '/cursor', code: 'INVALID_VALUE' }]);
}

const SCAN_BATCH = 200;

/**
 * One page of the rows the caller may see. Rows are filtered by `visible` BEFORE paging, so a
 * page is never short because of hidden rows and hidden rows never shape a cursor.
 */
export async function pageVisible<T>(
  list: string,
  query: ListQuery,
  scan: (page: PageRequest) => Promise<T[]>,
  keyOf: (row: T) => string,
  visible: (row: T) => boolean,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  let after = decodeCursor(list, query.cursor);
  const out: T[] = [];
  for (;;) {
    const batch = await scan({ ...(after !== undefined ? { after } : {}), limit: SCAN_BATCH });
    for (const row of batch) {
      if (visible(row)) out.push(row);
      if (out.length > limit) break;
    }
    if (out.length > limit || batch.length < SCAN_BATCH) break;
    after = keyOf(batch[batch.length - 1]!);
  }
  if (out.length <= limit) return { items: out, nextCursor: null };
  const items = out.slice(0, limit);
  return { items, nextCursor: encodeCursor(list, keyOf(items[limit - 1]!)) };
}
