import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETAIL_CODES, ERROR_STATUS, routeTable } from '../src/index.ts';

const apiDoc = readFileSync(join(import.meta.dirname, '../../../docs/api.md'), 'utf8');

describe('the error registry', () => {
  it('documents every error code and detail code in docs/api.md', () => {
    expect(Object.keys(ERROR_STATUS).filter((code) => !apiDoc.includes(`\`${code}\``))).toEqual([]);
    expect(DETAIL_CODES.filter((code) => !apiDoc.includes(code))).toEqual([]);
  });

  it('maps families by suffix: rejected credentials 400, rate limits 429, unavailable 503', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      if (code.endsWith('_RATE_LIMITED')) expect(status).toBe(429);
      if (code.endsWith('_CREDENTIALS_REJECTED')) expect(status).toBe(400);
      if (code.endsWith('_UNAVAILABLE')) expect(status).toBe(503);
    }
  });

  it('gives every route a unique operationId and every mutation an audit action', () => {
    const ids = routeTable.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const unaudited = routeTable.filter((r) => r.method !== 'GET' && !r.audit && !r.readOnly).map((r) => r.operationId);
    expect(unaudited).toEqual([]);
    // A read sent as POST (plugin discovery) changes nothing: it declares readOnly and no audit action.
    expect(routeTable.filter((r) => r.readOnly && (r.audit || r.method !== 'POST')).map((r) => r.operationId)).toEqual([]);
  });
});
