import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

/** Whether `target` lies inside `base` once both are resolved through symlinks (false when either does not exist). */
export function containedIn(base: string, target: string, realpath: (path: string) => string = realpathSync): boolean {
  let realBase: string;
  let realTarget: string;
  try {
    realBase = realpath(base);
    realTarget = realpath(target);
  } catch {
    return false;
  }
  const rel = relative(realBase, realTarget);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
