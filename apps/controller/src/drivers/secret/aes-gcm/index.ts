import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBinding, SecretDriver } from '../../../core/ports/secret-driver.ts';
import { OccError } from '../../../core/errors.ts';

const VERSION = 'v1';
const KEY_BYTES = 32;

/** Additional data binds a sealed value to its Secret: moved to another row, it will not open. */
const aad = (b: SecretBinding) => Buffer.from(`occ-secret:${b.namespaceId}:${b.secretId}`, 'utf8');

/**
 * Secrets encrypted at rest in the database with AES-256-GCM (random 96-bit nonce per seal).
 * Sealed form: `v1.<nonce>.<ciphertext>.<tag>` in base64url.
 */
export function createAesGcmSecretDriver(key: Buffer, id = 'aes-gcm'): SecretDriver {
  if (key.length !== KEY_BYTES) throw new Error('The secret encryption key must be exactly 32 bytes.');
  return {
    id,
    seal(value, binding) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(aad(binding));
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      return [VERSION, nonce, body, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    async withValue(sealed, binding, use) {
      if (sealed.driverId !== id) throw new OccError('DEPENDENCY_UNAVAILABLE', 'The Secret is held by another secret driver.');
      const [version, nonce, body, tag] = sealed.sealedValue.split('.');
      if (version !== VERSION || !nonce || body === undefined || !tag) throw new OccError('DEPENDENCY_UNAVAILABLE', 'The Secret cannot be read.');
      let value: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
        decipher.setAAD(aad(binding));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        value = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // Wrong key, tampered row or a row moved between Secrets: never say which, never echo.
        throw new OccError('DEPENDENCY_UNAVAILABLE', 'The Secret cannot be read.');
      }
      return use(value);
    },
  };
}
