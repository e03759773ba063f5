import { createHash } from 'node:crypto';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { CONTENT_ALGORITHM, contentFiles, contentPath, npmContentUnder } from '@occ/host-io/npm-content';
import { readRegularFile } from '@occ/host-io/regular-file';
import { openclawCuratedCatalog, parseOpenClawCatalog } from '@occ/policy';

/**
 * The installation's npm content store (issue 26, point 4; docs/deployments.md, "A shared npm
 * cache"): the tarballs of the catalog's plugins that Agents' installs downloaded, kept by OCC
 * under `<root>/npm-content` in npm's content layout, shown read-only to every runtime, which
 * copies it into its own npm cache before it installs — so a second Agent installing the same
 * plugin does not download it again.
 *
 * An Agent is untrusted and writes its own npm cache. Only content crosses, never npm's index or
 * metadata, and a file enters the store only when its digest is one the catalog pins for a plugin
 * (what every Agent of this installation may install anyway, so the store discloses nothing) and
 * its bytes hash to that digest. npm finds a tarball by integrity and verifies it on read, and the
 * runtime checks each install against the pinned integrity again.
 */

/** The store of one local driver: `<root>/npm-content`, taking the digests its catalog pins. */
export class NpmContentStore {
  private pinned: ReadonlySet<string> | null = null;
  private made: string | null = null;

  /** `catalogPath`: the operator's catalog (OCC_OPENCLAW_CATALOG); absent: the committed one. */
  constructor(
    private readonly root: string,
    private readonly catalogPath: string | undefined,
  ) {}

  /** The store's directory, made readable (0755) once: every runtime is shown it read-only. */
  dir(): string {
    if (this.made === null) {
      const store = join(this.root, 'npm-content');
      mkdirSync(store, { recursive: true, mode: 0o755 });
      chmodSync(store, 0o755);
      this.made = store;
    }
    return this.made;
  }

  /** What a ready revision's installs downloaded of the catalog's pinned plugins (harvestAgentCache). */
  harvest(agentHome: string): Harvest {
    return harvestAgentCache(this.dir(), agentHome, this.pinnedDigests());
  }

  /** The digests the catalog pins for its plugins (the only content the store takes); read once. */
  private pinnedDigests(): ReadonlySet<string> {
    if (!this.pinned) {
      const catalog = this.catalogPath ? parseOpenClawCatalog(JSON.parse(readFileSync(this.catalogPath, 'utf8'))) : openclawCuratedCatalog();
      this.pinned = new Set(catalog.plugins.map((plugin) => pinnedDigest(plugin.integrity)).filter((digest): digest is string => digest !== null));
    }
    return this.pinned;
  }
}

/** Larger files are left out (a plugin tarball is kilobytes to a few megabytes). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface Harvest {
  copied: number;
  /** Files named by a pinned digest whose bytes did not hash to it (left out). */
  refused: number;
}

/** A catalog's sha512 integrity (`sha512-<base64>`) as the hex digest npm's content layout names files by; null for anything else. */
export function pinnedDigest(integrity: string): string | null {
  const match = /^sha512-([A-Za-z0-9+/]+={0,2})$/.exec(integrity);
  return match ? Buffer.from(match[1]!, 'base64').toString('hex') : null;
}

/**
 * Adds to the store each file of the Agent's npm content named by a `pinned` digest whose bytes
 * hash to it. Other names are not opened at all; a link (last component) or anything but a regular
 * file is refused.
 */
export function harvestAgentCache(storeDir: string, agentHome: string, pinned: ReadonlySet<string>): Harvest {
  let copied = 0;
  let refused = 0;
  for (const { digest, path } of contentFiles(npmContentUnder(agentHome))) {
    if (!pinned.has(digest)) continue;
    const into = contentPath(storeDir, digest);
    if (existsSync(into)) continue;
    if (copyIfDigestMatches(path, into, digest, storeDir)) copied += 1;
    else refused += 1;
  }
  return { copied, refused };
}

/**
 * Reads `path` without following a last-component link or blocking on a FIFO, hashes what it read
 * and, when it is a regular file of the digest named, writes those bytes to `into` (a temporary
 * file renamed into place: never a partial file). The store is world-readable (0755/0644): every
 * runtime is shown it read-only. False when anything is off.
 */
function copyIfDigestMatches(path: string, into: string, digest: string, storeDir: string): boolean {
  const content = readRegularFile(path, MAX_FILE_BYTES)?.bytes;
  if (content === undefined) return false;
  if (createHash(CONTENT_ALGORITHM).update(content).digest('hex') !== digest) return false;
  readableDirs(storeDir, dirname(into));
  const temp = `${into}.${process.pid}.tmp`;
  try {
    const out = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      let written = 0;
      while (written < content.length) written += writeSync(out, content, written, content.length - written);
    } finally {
      closeSync(out);
    }
    chmodSync(temp, 0o644);
    renameSync(temp, into);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}

/** `dir` and every directory between the store and it, created 0755 (readable by runtimes of any uid through their read-only view). */
function readableDirs(storeDir: string, dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  let at = storeDir;
  chmodSync(at, 0o755);
  for (const part of relative(storeDir, dir).split(sep).filter(Boolean)) {
    at = join(at, part);
    chmodSync(at, 0o755);
  }
}
