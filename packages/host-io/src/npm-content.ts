import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * npm's content-addressed tarball store, as the runtime and the local driver share it (the
 * installation's npm content store: docs/deployments.md, "A shared npm cache"): files named by
 * their sha512 digest, `sha512/ab/cd/<rest of the hex digest>`, the layout of npm's own
 * `_cacache/content-v2`.
 */
export const CONTENT_ALGORITHM = 'sha512';
const HEX_DIGEST = /^[0-9a-f]{128}$/;
/** At most this many files are looked at per walk: a directory cannot make its reader walk forever. */
const MAX_FILES_SEEN = 20_000;

/** npm's content directory under a HOME (npm's default cache, which OpenClaw's installs use). */
export const npmContentUnder = (home: string) => join(home, '.npm', '_cacache', 'content-v2');

/** Where a digest's file lives below a content directory. */
export const contentPath = (contentDir: string, hexDigest: string) => join(contentDir, CONTENT_ALGORITHM, hexDigest.slice(0, 2), hexDigest.slice(2, 4), hexDigest.slice(4));

/** The files of a content directory laid out as npm lays them out (directories that are links are not walked); anything else is skipped. */
export function* contentFiles(contentDir: string): Generator<{ digest: string; path: string }> {
  const root = join(contentDir, CONTENT_ALGORITHM);
  let seen = 0;
  for (const a of directoryNames(root)) {
    for (const b of directoryNames(join(root, a))) {
      for (const rest of directoryNames(join(root, a, b))) {
        if (++seen > MAX_FILES_SEEN) return;
        const digest = `${a}${b}${rest}`;
        if (a.length === 2 && b.length === 2 && HEX_DIGEST.test(digest)) yield { digest, path: join(root, a, b, rest) };
      }
    }
  }
}

function directoryNames(dir: string): string[] {
  try {
    if (!lstatSync(dir).isDirectory()) return [];
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Copies each file of `from` that `to` lacks (both content directories); returns how many. */
export function copyMissingContent(from: string, to: string): number {
  let copied = 0;
  for (const { digest, path } of contentFiles(from)) {
    const into = contentPath(to, digest);
    if (existsSync(into)) continue;
    mkdirSync(join(into, '..'), { recursive: true, mode: 0o700 });
    copyFileSync(path, into);
    copied += 1;
  }
  return copied;
}
