/**
 * JSON pointers into the Agent body for the plugin editor. Plugin keys may contain '/' and '~'
 * (`openclaw:@scope/name`), so every segment is escaped as RFC 6901 says: '~' first, then '/'.
 * Building pointers the same way the server does means an error's `path` matches a control
 * exactly, instead of a '/' in a key splitting one segment into two.
 */
function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...segments: readonly string[]): string {
  return segments.map((segment) => `/${escapeSegment(segment)}`).join('');
}

export function pluginPointer(pluginKey: string, ...rest: readonly string[]): string {
  return pointer('plugins', pluginKey, ...rest);
}

/** A DOM id derived from a pointer: stable, unique per control, and free of characters ids dislike. */
export function controlId(prefix: string, path: string): string {
  let hash = 0;
  for (const char of path) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return `${prefix}-${path.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60)}-${(hash >>> 0).toString(36)}`;
}
