import { ApiError } from '@occ/contracts/client';

/** One segment of a JSON pointer (RFC 6901): the server names a binding as /secretBindings/<escaped name>. */
export function pointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The server's details at `pointer` or under it, with their paths (for nested values). */
export function detailsUnder(error: unknown, pointer: string): { path: string; code: string }[] {
  if (!(error instanceof ApiError)) return [];
  return error.details.filter((detail) => detail.path === pointer || detail.path.startsWith(`${pointer}/`)).map(({ path, code }) => ({ path, code }));
}
