/** RFC 6901: `~` must be escaped before `/`, or `/` would turn into `~01`. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** RFC 6901: `~1` must be decoded before `~0`, or `~01` would turn into `/`. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Builds a JSON pointer from raw (unescaped) segments: `pointer('plugins', 'a/b')` is `/plugins/a~1b`. */
export function pointer(...segments: ReadonlyArray<string | number>): string {
  return segments.map((segment) => `/${escapePointerSegment(String(segment))}`).join('');
}

/** Splits a JSON pointer into raw segments; `''` is the whole document. Throws on a malformed pointer. */
export function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/') || /~(?![01])/.test(path)) throw new Error('Malformed JSON pointer.');
  return path.slice(1).split('/').map(unescapePointerSegment);
}
