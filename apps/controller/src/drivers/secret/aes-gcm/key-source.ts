import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

const SECRET_KEY_FILE = 'secret-key';

/**
 * The encryption key: OCC_SECRET_KEY (base64 or base64url, 32 bytes) when set; otherwise a
 * key file in the data directory, generated on first use with mode 0600.
 */
export function resolveSecretKey(env: NodeJS.ProcessEnv, dataDir: string | undefined): Buffer {
  const configured = env.OCC_SECRET_KEY;
  if (configured) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new Error('OCC_SECRET_KEY must be 32 bytes, base64-encoded.');
    return key;
  }
  if (!dataDir) throw new Error('OCC_SECRET_KEY is required when there is no data directory.');
  const path = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key.`);
    return key;
  }
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * The controller's key for a process that must never make its own (`occ worker`): OCC_SECRET_KEY,
 * or the key file a controller already wrote in the shared data directory. Generating a fresh key
 * here would open no Secret and fail every runtime start with a misleading error.
 */
export function existingSecretKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  if (!env.OCC_SECRET_KEY && !existsSync(join(dataDir, SECRET_KEY_FILE))) {
    throw new Error(`OCC_SECRET_KEY is required (the controller's key), or ${join(dataDir, SECRET_KEY_FILE)} from the controller's data directory.`);
  }
  return resolveSecretKey(env, dataDir);
}
