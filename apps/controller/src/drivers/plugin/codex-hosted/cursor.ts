import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PluginDiscoveryError } from '../../../core/ports/plugin-driver.ts';

const MAX_CURSOR_LENGTH = 8192;
const CURSOR = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/u;

/**
 * Opaque paging cursors: the upstream page token, sealed with an HMAC over (credential hash,
 * query, token). A cursor only opens for the query and credential it was issued for; any other
 * cursor is `invalid_cursor`. The key is random per process unless one is configured (replicas
 * behind one load balancer must share it).
 */
export class CursorSeal {
  readonly #key: Uint8Array;

  constructor(key?: Uint8Array) {
    if (key !== undefined && key.length < 32) throw new Error('The discovery cursor key must hold at least 32 bytes');
    this.#key = key ?? randomBytes(32);
  }

  seal(credential: string, query: string, upstreamToken: string): string {
    const cursor = `${Buffer.from(upstreamToken, 'utf8').toString('base64url')}.${this.#mac(credential, query, upstreamToken).toString('base64url')}`;
    // The upstream controls the token's length; a cursor that would not fit is its fault.
    if (cursor.length > MAX_CURSOR_LENGTH) throw new PluginDiscoveryError('invalid_response');
    return cursor;
  }

  /** The upstream token inside a cursor issued for this credential and query. */
  open(credential: string, query: string, cursor: string): string {
    const parts = cursor.length <= MAX_CURSOR_LENGTH ? CURSOR.exec(cursor) : null;
    if (!parts) throw new PluginDiscoveryError('invalid_cursor');
    const token = Buffer.from(parts[1]!, 'base64url').toString('utf8');
    const given = Buffer.from(parts[2]!, 'base64url');
    const expected = this.#mac(credential, query, token);
    if (token.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new PluginDiscoveryError('invalid_cursor');
    }
    return token;
  }

  #mac(credential: string, query: string, token: string): Buffer {
    const credentialHash = createHash('sha256').update(credential, 'utf8').digest('hex');
    return createHmac('sha256', this.#key)
      .update(JSON.stringify(['codex-hosted/v1', credentialHash, query, token]), 'utf8')
      .digest();
  }
}
