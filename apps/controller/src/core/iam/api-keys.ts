import { createHash, randomBytes } from 'node:crypto';

const KEY_PATTERN = /^occ_[A-Za-z0-9_-]{43}$/;
const PREFIX_LENGTH = 12;

export interface NewApiKey {
  key: string;
  hash: Uint8Array;
  prefix: string;
}

/**
 * A key is 256 random bits, so a single SHA-256 is a sufficient stored form: there is no
 * low-entropy secret for a slow hash to protect, and lookups stay one indexed equality.
 */
export function hashApiKey(key: string): Buffer {
  // createHash, not the one-shot crypto.hash: that needs Node 20.12, and OCC runs on any Node 20.
  return createHash('sha256').update(key).digest();
}

export function generateApiKey(): NewApiKey {
  const key = `occ_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, PREFIX_LENGTH) };
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
