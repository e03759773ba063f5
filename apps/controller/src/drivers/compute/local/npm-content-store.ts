import { createHash } from 'node:crypto';
import { closeSync, constants, copyFileSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One npm content store per installation (issue 26, point 4; docs/deployments.md, "A shared npm
 * cache"): the package tarballs Agents' installs downloaded, kept by OCC under
 * `<root>/npm-content` in npm's own content-addressed layout (`content-v2/sha512/ab/cd/<rest of the
 * hex digest>`), so a second Agent installing the same plugin finds it in its cache instead of
 * downloading it again.
 *
 * An Agent is untrusted and writes its own npm cache: only *content* crosses, never npm's index or
 * metadata, and a file enters the store only when its bytes hash to the digest its path names. npm
 * looks a tarball up by the integrity the registry's metadata (and the catalog's pin) gives, and
 * verifies it on read, so a stored file can only ever be the package it claims to be. Agents never
 * see the store itself: OCC copies its files into an Agent's own cache before a start.
 */
const ALGORITHM = 'sha512';
/** npm's cache under the runtime's HOME (npm's default, which OpenClaw's installs use). */
const CONTENT_UNDER_HOME = ['.npm', '_cacache', 'content-v2', ALGORITHM];
const HEX_DIGEST = /^[0-9a-f]{128}$/;
/** Larger files are left out (a plugin tarball is kilobytes to a few megabytes). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** At most this many files are looked at per harvest: an Agent's cache cannot make OCC walk forever. */
const MAX_FILES_SEEN = 20_000;

export interface ContentCopy {
  copied: number;
  /** Files in the Agent's cache whose bytes did not hash to their path's digest (left out). */
  refused: number;
}

/** Copies every stored file the Agent's npm cache lacks into it (OCC's copy: the Agent owns the copy, never the store's). */
export function seedAgentCache(storeDir: string, agentHome: string): ContentCopy {
  const target = join(agentHome, ...CONTENT_UNDER_HOME);
  let copied = 0;
  for (const { digest, path } of contentFiles(join(storeDir, ALGORITHM))) {
    const into = join(target, ...digestPath(digest));
    if (existsSync(into)) continue;
    mkdirSync(join(into, '..'), { recursive: true, mode: 0o700 });
    copyFileSync(path, into);
    copied += 1;
  }
  return { copied, refused: 0 };
}

/**
 * Adds to the store each regular file of the Agent's npm content whose bytes hash to the digest its
 * path names (anything else — a link, a device, a file that lies about its digest — is left out).
 */
export function harvestAgentCache(storeDir: string, agentHome: string): ContentCopy {
  const source = join(agentHome, ...CONTENT_UNDER_HOME);
  let copied = 0;
  let refused = 0;
  for (const { digest, path } of contentFiles(source)) {
    const into = join(storeDir, ALGORITHM, ...digestPath(digest));
    if (existsSync(into)) continue;
    const verified = copyIfDigestMatches(path, into, digest);
    if (verified) copied += 1;
    else refused += 1;
  }
  return { copied, refused };
}

const digestPath = (hex: string) => [hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)];

/** The files under a `content-v2/sha512` directory laid out as npm lays them out; anything else is skipped. */
function* contentFiles(root: string): Generator<{ digest: string; path: string }> {
  let seen = 0;
  for (const a of names(root)) {
    for (const b of names(join(root, a))) {
      for (const rest of names(join(root, a, b))) {
        if (++seen > MAX_FILES_SEEN) return;
        const digest = `${a}${b}${rest}`;
        if (a.length === 2 && b.length === 2 && HEX_DIGEST.test(digest)) yield { digest, path: join(root, a, b, rest) };
      }
    }
  }
}

function names(dir: string): string[] {
  try {
    if (!lstatSync(dir).isDirectory()) return [];
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Reads `path` without following a link or blocking on a FIFO, hashes what it read and, when it is
 * a regular file of the digest named, writes those same bytes to `into` (a temporary file renamed
 * into place, so the store never holds a partial file). False when anything is off.
 */
function copyIfDigestMatches(path: string, into: string, digest: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return false;
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const content = bytes.subarray(0, read);
    if (createHash(ALGORITHM).update(content).digest('hex') !== digest) return false;
    mkdirSync(join(into, '..'), { recursive: true, mode: 0o700 });
    const temp = `${into}.${process.pid}.tmp`;
    try {
      writeExclusive(temp, content);
      renameSync(temp, into);
    } catch {
      rmSync(temp, { force: true });
      return false;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

function writeExclusive(path: string, content: Buffer): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    let written = 0;
    while (written < content.length) written += writeSync(fd, content, written, content.length - written);
  } finally {
    closeSync(fd);
  }
}
