import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { OpenClawCatalog } from '@occ/policy';
import { PluginDiscoveryError } from '../../../core/ports/plugin-driver.ts';

const OFFSET_BYTES = 4;
const MAC_BYTES = 32;

/**
 * Paging cursors of the curated catalog: an offset, bound by an HMAC to the (normalized) query
 * and to the catalog itself. The key is the catalog's digest, not a secret: the catalog is
 * public and an offset grants nothing, so the MAC only has to tell a cursor of this query and
 * this catalog from any other. Replicas serving the same catalog therefore agree without
 * shared configuration, and a cursor outlives neither its query nor a catalog change.
 */
export class CuratedPageCursors {
  readonly #key: Buffer;

  constructor(catalog: OpenClawCatalog) {
    this.#key = createHash('sha256').update('openclaw-curated/catalog/v1').update(JSON.stringify(catalog)).digest();
  }

  issue(query: string, offset: number): string {
    const head = Buffer.alloc(OFFSET_BYTES);
    head.writeUInt32BE(offset);
    return Buffer.concat([head, this.#mac(query, offset)]).toString('base64url');
  }

  /** The offset inside a cursor issued for this query; anything else is `invalid_cursor`. */
  offset(query: string, cursor: string): number {
    const bytes = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
    if (bytes.length !== OFFSET_BYTES + MAC_BYTES || bytes.toString('base64url') !== cursor) throw new PluginDiscoveryError('invalid_cursor');
    const offset = bytes.readUInt32BE(0);
    if (!timingSafeEqual(bytes.subarray(OFFSET_BYTES), this.#mac(query, offset))) throw new PluginDiscoveryError('invalid_cursor');
    return offset;
  }

  #mac(query: string, offset: number): Buffer {
    return createHmac('sha256', this.#key)
      .update(JSON.stringify(['openclaw-curated/cursor/v1', query, offset]))
      .digest();
  }
}
