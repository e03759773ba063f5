import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readIfExists, writePrivateFileAtomic } from '@occ/host-io/private-files';

const DRIVER_KEY_FILE = 'driver-key';

/**
 * The key a driver derives its runtimes' tokens from (local, ssh): 32 bytes generated once (0600)
 * in the driver's root and kept, so tokens survive an OCC restart.
 */
export function loadDriverKey(root: string): Buffer {
  const path = join(root, DRIVER_KEY_FILE);
  const existing = readIfExists(path);
  if (existing === null) writePrivateFileAtomic(path, `${randomBytes(32).toString('base64')}\n`);
  const key = Buffer.from((existing ?? readIfExists(path) ?? '').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key.`);
  return key;
}

/** `app-server-transport`: the runtime's OCC_RUNTIME_TRANSPORT_SECRET, from which it derives each startup's gateway↔app-server credential. */
export const TOKEN_LABELS = ['startup-status', 'gateway', 'app-server-transport'] as const;
export type TokenLabel = (typeof TOKEN_LABELS)[number];

/** A per-revision bearer token: HMAC-SHA256(driver key, label ‖ revision id). Never logged. */
export function deriveToken(key: Buffer, label: TokenLabel, revisionId: string): string {
  return createHmac('sha256', key).update(`occ-local-runtime:${label}\u0000${revisionId}`).digest('base64url');
}
