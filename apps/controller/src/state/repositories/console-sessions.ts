import type { ConsoleSessionRecord, ConsoleSessionRepository } from '../../core/ports/console-session-repository.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { POLICY_COLUMNS, toPolicy, type PolicyJson } from './iam-authenticate.ts';

interface Row {
  id: string;
  principal_id: string;
  principal_name: string;
  expires_at: Date;
  csrf_hash: Uint8Array;
}

// A session never outlives its key: its expiry is capped at the key's, and every read re-checks the key.
const INSERT_FOR_KEY = `
  WITH s AS (
    INSERT INTO console_sessions (id, token_hash, principal_id, api_key_id, csrf_hash, expires_at)
    SELECT $1, $2, k.principal_id, k.id, $3, LEAST(now() + make_interval(secs => $5), k.expires_at)
    FROM api_keys k WHERE k.key_hash = $4 AND k.revoked_at IS NULL AND k.expires_at > now()
    RETURNING id, principal_id, expires_at, csrf_hash
  )
  SELECT s.*, p.name AS principal_name FROM s JOIN principals p ON p.id = s.principal_id`;

const AUTHENTICATE = `
  WITH p AS (
    SELECT p.id, p.name AS principal_name, s.id AS session_id, s.expires_at, s.csrf_hash
    FROM console_sessions s
    JOIN api_keys k ON k.id = s.api_key_id
    JOIN principals p ON p.id = s.principal_id
    WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
      AND k.revoked_at IS NULL AND k.expires_at > now()
  )
  SELECT p.*, ${POLICY_COLUMNS} FROM p`;

const toRecord = (r: Row, id = r.id): ConsoleSessionRecord => ({
  id,
  principalId: r.principal_id,
  principalName: r.principal_name,
  expiresAt: new Date(r.expires_at),
  csrfHash: new Uint8Array(r.csrf_hash),
});

export function consoleSessionRepository(q: Queryable): ConsoleSessionRepository {
  const run = runner(q);
  return {
    async insertForKey(s) {
      const { rows } = await run<Row>(INSERT_FOR_KEY, [s.id, Buffer.from(s.tokenHash), Buffer.from(s.csrfHash), Buffer.from(s.keyHash), s.ttlSeconds]);
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async authenticate(tokenHash) {
      const { rows } = await run<{ id: string; principal_name: string; session_id: string; expires_at: Date; csrf_hash: Uint8Array } & PolicyJson>(AUTHENTICATE, [
        Buffer.from(tokenHash),
      ]);
      const row = rows[0];
      if (!row) return null;
      return { session: toRecord({ ...row, principal_id: row.id }, row.session_id), policy: toPolicy(row.id, row) };
    },
    async revoke(id) {
      const { rowCount } = await run('UPDATE console_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
