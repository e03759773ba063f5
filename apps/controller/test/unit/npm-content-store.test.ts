import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentPath, copyMissingContent, npmContentUnder } from '@occ/host-io/npm-content';
import { harvestAgentCache, pinnedDigest } from '../../src/drivers/compute/local/npm-content-store.ts';

// The installation's npm content store against Agents' npm caches, as an attacker controls theirs.
let dir: string;
let store: string;
const homeOf = (name: string) => join(dir, name);
const sha512 = (bytes: string | Buffer) => createHash('sha512').update(bytes).digest('hex');
const integrityOf = (bytes: string) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** Writes `bytes` into an Agent's npm content under `digest` (its own digest unless told otherwise). */
function plant(home: string, bytes: string, digest = sha512(bytes)): string {
  const path = contentPath(npmContentUnder(home), digest);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  return digest;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'occ-npm-content-'));
  store = join(dir, 'store');
  mkdirSync(store);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the npm content store', () => {
  it('a catalog integrity names the hex digest npm files content by; anything else names none', () => {
    expect(pinnedDigest(integrityOf('a plugin tarball'))).toBe(sha512('a plugin tarball'));
    expect(pinnedDigest('sha1-abc=')).toBeNull();
    expect(pinnedDigest('sha512-not base64!')).toBeNull();
  });

  it("a pinned tarball one Agent's install downloaded is kept (readable by every runtime) and copied into the next Agent's own cache", () => {
    const tarball = 'a plugin tarball';
    const digest = plant(homeOf('first'), tarball);
    expect(harvestAgentCache(store, homeOf('first'), new Set([digest]))).toEqual({ copied: 1, refused: 0 });
    const kept = contentPath(store, digest);
    expect(statSync(kept).mode & 0o777).toBe(0o644);
    expect(statSync(join(kept, '..')).mode & 0o777).toBe(0o755);
    // The runtime's side, as the Agent: the store into its own npm cache.
    expect(copyMissingContent(store, npmContentUnder(homeOf('second')))).toBe(1);
    expect(readFileSync(contentPath(npmContentUnder(homeOf('second')), digest), 'utf8')).toBe(tarball);
    // Nothing twice.
    expect(harvestAgentCache(store, homeOf('first'), new Set([digest]))).toEqual({ copied: 0, refused: 0 });
    expect(copyMissingContent(store, npmContentUnder(homeOf('second')))).toBe(0);
  });

  it('content the catalog does not pin is never kept, however genuine: another Agent’s private packages stay its own', () => {
    plant(homeOf('first'), 'a package outside the catalog');
    expect(harvestAgentCache(store, homeOf('first'), new Set([sha512('a plugin tarball')]))).toEqual({ copied: 0, refused: 0 });
    expect(copyMissingContent(store, npmContentUnder(homeOf('second')))).toBe(0);
  });

  it('a file named by a pinned digest whose bytes do not hash to it never enters the store (a poisoned cache stays its own)', () => {
    const genuine = sha512('the real package');
    plant(homeOf('attacker'), 'malicious code', genuine);
    expect(harvestAgentCache(store, homeOf('attacker'), new Set([genuine]))).toEqual({ copied: 0, refused: 1 });
    expect(existsSync(contentPath(store, genuine))).toBe(false);
  });

  it('a link or a FIFO named by a pinned digest is refused, and a directory swapped for a link is not walked: OCC reads nothing the Agent points it at', () => {
    const secret = join(dir, 'occ-secret-key');
    writeFileSync(secret, 'not for agents');
    const linked = contentPath(npmContentUnder(homeOf('attacker')), sha512('not for agents'));
    mkdirSync(join(linked, '..'), { recursive: true });
    symlinkSync(secret, linked);
    const fifoDigest = sha512('fifo');
    const fifo = contentPath(npmContentUnder(homeOf('attacker')), fifoDigest);
    mkdirSync(join(fifo, '..'), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const elsewhere = join(dir, 'elsewhere');
    const hidden = plant(elsewhere, 'behind a link');
    symlinkSync(join(npmContentUnder(elsewhere), 'sha512', hidden.slice(0, 2)), join(npmContentUnder(homeOf('attacker')), 'sha512', hidden.slice(0, 2)));

    const pinned = new Set([sha512('not for agents'), fifoDigest, hidden]);
    expect(harvestAgentCache(store, homeOf('attacker'), pinned)).toEqual({ copied: 0, refused: 2 });
    expect(copyMissingContent(store, npmContentUnder(homeOf('other')))).toBe(0);
  });

  it('an Agent without an npm cache, and an empty store, are nothing to copy', () => {
    expect(harvestAgentCache(store, homeOf('nobody'), new Set())).toEqual({ copied: 0, refused: 0 });
    expect(copyMissingContent(store, npmContentUnder(homeOf('nobody')))).toBe(0);
  });
});
