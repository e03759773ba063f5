import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harvestAgentCache, seedAgentCache } from '../../src/drivers/compute/local/npm-content-store.ts';

// The installation's npm content store against Agents' npm caches, as an attacker controls theirs.
let dir: string;
let store: string;
const homeOf = (name: string) => join(dir, name);
const sha512 = (bytes: string | Buffer) => createHash('sha512').update(bytes).digest('hex');
const contentPath = (root: string, digest: string) => join(root, digest.slice(0, 2), digest.slice(2, 4), digest.slice(4));
const agentContent = (home: string) => join(home, '.npm', '_cacache', 'content-v2', 'sha512');

/** Writes `bytes` into an Agent's cache under `digest` (its own digest unless told otherwise). */
function plant(home: string, bytes: string, digest = sha512(bytes)): string {
  const path = contentPath(agentContent(home), digest);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  return digest;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'occ-npm-content-'));
  store = join(dir, 'store');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the npm content store', () => {
  it("a tarball one Agent's install downloaded is copied into the next Agent's cache, under the same digest", () => {
    const tarball = 'a plugin tarball';
    const digest = plant(homeOf('first'), tarball);
    expect(harvestAgentCache(store, homeOf('first'))).toEqual({ copied: 1, refused: 0 });
    expect(seedAgentCache(store, homeOf('second'))).toEqual({ copied: 1, refused: 0 });
    expect(readFileSync(contentPath(agentContent(homeOf('second')), digest), 'utf8')).toBe(tarball);
    // Nothing twice: a second harvest or seed finds everything there.
    expect(harvestAgentCache(store, homeOf('first'))).toEqual({ copied: 0, refused: 0 });
    expect(seedAgentCache(store, homeOf('second'))).toEqual({ copied: 0, refused: 0 });
  });

  it('a file whose bytes do not hash to the digest its path names never enters the store (a poisoned cache stays its own)', () => {
    const genuine = sha512('the real package');
    plant(homeOf('attacker'), 'malicious code', genuine);
    expect(harvestAgentCache(store, homeOf('attacker'))).toEqual({ copied: 0, refused: 1 });
    expect(existsSync(contentPath(join(store, 'sha512'), genuine))).toBe(false);
    expect(seedAgentCache(store, homeOf('victim'))).toEqual({ copied: 0, refused: 0 });
  });

  it('links, FIFOs and names outside npm’s layout are left out: OCC reads nothing the Agent points it at', () => {
    const secret = join(dir, 'occ-secret-key');
    writeFileSync(secret, 'not for agents');
    const linked = contentPath(agentContent(homeOf('attacker')), sha512('not for agents'));
    mkdirSync(join(linked, '..'), { recursive: true });
    symlinkSync(secret, linked);
    const fifoDigest = sha512('fifo');
    const fifo = contentPath(agentContent(homeOf('attacker')), fifoDigest);
    mkdirSync(join(fifo, '..'), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(agentContent(homeOf('attacker')), 'zz', 'not-hex'), { recursive: true });
    writeFileSync(join(agentContent(homeOf('attacker')), 'zz', 'not-hex', 'file'), 'x');
    // The whole directory swapped for a link to somewhere else is not walked either.
    symlinkSync(dir, join(homeOf('attacker'), '.npm', '_cacache', 'content-v2', 'sha1'));

    expect(harvestAgentCache(store, homeOf('attacker'))).toEqual({ copied: 0, refused: 2 });
    expect(seedAgentCache(store, homeOf('other'))).toEqual({ copied: 0, refused: 0 });
  });

  it('an Agent without an npm cache, and a store not made yet, are nothing to copy', () => {
    expect(harvestAgentCache(store, homeOf('nobody'))).toEqual({ copied: 0, refused: 0 });
    expect(seedAgentCache(store, homeOf('nobody'))).toEqual({ copied: 0, refused: 0 });
  });
});
