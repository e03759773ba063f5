/**
 * A JSON pointer as a person reads it: each segment decoded (`~1` → `/`, `~0` → `~`), so
 * `/plugins/openclaw:@openclaw~1x` reads `/plugins/openclaw:@openclaw/x`; `''` (the whole
 * document) reads `/`. For human output only: machine output (JSON, YAML) keeps the pointer,
 * which stays unambiguous where a key holds a `/`.
 */
export function humanPointer(path: string): string {
  if (path === '') return '/';
  return path
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('/');
}
