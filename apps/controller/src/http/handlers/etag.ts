import { OccError } from '../../core/errors.ts';
import type { HandlerResult } from './handler.ts';

/**
 * The entity tag of a resource with a counter that every update increases (an Agent's
 * `version`, a Configuration's `generation`): `"N"`.
 */
export const withEtag = <Data>(data: Data, counter: number): HandlerResult<Data> => ({ data, headers: { etag: `"${counter}"` } });

/** If-Match: absent or `*` → no precondition; `"N"` (or W/"N") → counter N; anything else fails. */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,9})"$/.exec(ifMatch.trim());
  if (!match) throw new OccError('PRECONDITION_FAILED', 'If-Match must be an ETag returned by this API.');
  return Number(match[1]);
}
