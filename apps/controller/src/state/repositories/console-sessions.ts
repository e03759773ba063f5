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
  kind: 'console' | 'cli';
  issuer: string | null;
  provider_tokens_sealed: string | null;
  refresh_due_at: Date | null;
  last_seen_at: Date;
  /** By the database's clock: the refresh is due, and due for longer than the grace. */
  refresh_due?: boolean;
  refresh_overdue?: boolean;
}

const RETURNED = 'id, principal_id, expires_at, csrf_hash, kind, issuer, provider_tokens_sealed, refresh_due_at, last_seen_at';

// A session never outlives its key: its expiry is capped at the key's, and every read re-checks the key.
const INSERT_FOR_KEY = `
  WITH s AS (
    INSERT INTO console_sessions (id, token_hash, principal_id, api_key_id, csrf_hash, expires_at)
    SELECT $1, $2, k.principal_id, k.id, $3, LEAST(now() + make_interval(secs => $5), k.expires_at)
    FROM api_keys k WHERE k.key_hash = $4 AND k.revoked_at IS NULL AND k.expires_at > now()
    RETURNING ${RETURNED}
  )
  SELECT s.*, p.name AS principal_name FROM s JOIN principals p ON p.id = s.principal_id`;

const INSERT_FOR_IDENTITY = `
  WITH s AS (
    INSERT INTO console_sessions (id, kind, token_hash, principal_id, issuer, csrf_hash, provider_tokens_sealed, expires_at, refresh_due_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8), now() + make_interval(secs => $9))
    RETURNING ${RETURNED}
  )
  SELECT s.*, p.name AS principal_name FROM s JOIN principals p ON p.id = s.principal_id`;

// A key-less session is a single sign-on one: it lives while the provider that signed it in is
// still the configured one (replacing or removing the provider ends it).
const AUTHENTICATE = `
  WITH s AS (
    UPDATE console_sessions s SET last_seen_at = CASE WHEN s.last_seen_at < now() - interval '60 seconds' THEN now() ELSE s.last_seen_at END
    WHERE s.token_hash = $1 AND s.kind = $3 AND s.revoked_at IS NULL AND s.expires_at > now()
      AND s.last_seen_at > now() - make_interval(secs => $2)
      AND (s.api_key_id IS NULL OR EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.api_key_id AND k.revoked_at IS NULL AND k.expires_at > now()))
      AND (s.issuer IS NULL OR EXISTS (SELECT 1 FROM sign_in_provider sp WHERE sp.issuer = s.issuer))
    RETURNING ${RETURNED},
      s.refresh_due_at <= now() AS refresh_due,
      s.refresh_due_at <= now() - make_interval(secs => $4) AS refresh_overdue
  ), p AS (
    SELECT p.id, p.name AS principal_name, s.id AS session_id, s.expires_at, s.csrf_hash, s.kind, s.issuer, s.provider_tokens_sealed, s.refresh_due_at,
      s.last_seen_at, s.refresh_due, s.refresh_overdue
    FROM s JOIN principals p ON p.id = s.principal_id
  )
  SELECT p.*, ${POLICY_COLUMNS} FROM p`;

const toRecord = (r: Row, id = r.id): ConsoleSessionRecord => ({
  id,
  principalId: r.principal_id,
  principalName: r.principal_name,
  expiresAt: new Date(r.expires_at),
  csrfHash: new Uint8Array(r.csrf_hash),
  kind: r.kind,
  sso:
    r.issuer !== null && r.refresh_due_at !== null
      ? {
          issuer: r.issuer,
          providerTokensSealed: r.provider_tokens_sealed,
          refreshDueAt: new Date(r.refresh_due_at),
          refresh: r.refresh_overdue ? 'overdue' : r.refresh_due ? 'due' : 'fresh',
        }
      : null,
  lastSeenAt: new Date(r.last_seen_at),
});

export function consoleSessionRepository(q: Queryable): ConsoleSessionRepository {
  const run = runner(q);
  return {
    async insertForKey(s) {
      const { rows } = await run<Row>(INSERT_FOR_KEY, [s.id, Buffer.from(s.tokenHash), Buffer.from(s.csrfHash), Buffer.from(s.keyHash), s.ttlSeconds]);
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async insertForIdentity(s) {
      const { rows } = await run<Row>(INSERT_FOR_IDENTITY, [
        s.id,
        s.kind,
        Buffer.from(s.tokenHash),
        s.principalId,
        s.issuer,
        Buffer.from(s.csrfHash),
        s.providerTokensSealed,
        s.ttlSeconds,
        s.refreshIntervalSeconds,
      ]);
      return toRecord(rows[0]!);
    },
    async authenticate(tokenHash, kind, limits) {
      const { rows } = await run<Omit<Row, 'principal_id'> & { session_id: string } & PolicyJson>(AUTHENTICATE, [
        Buffer.from(tokenHash),
        limits.idleSeconds,
        kind,
        limits.refreshGraceSeconds,
      ]);
      const row = rows[0];
      if (!row) return null;
      return { session: toRecord({ ...row, principal_id: row.id }, row.session_id), policy: toPolicy(row.id, row) };
    },
    async claimRefresh(id, claim, leaseSeconds) {
      const { rowCount } = await run(
        `UPDATE console_sessions SET refresh_claimed_until = now() + make_interval(secs => $3), refresh_claim = $2
         WHERE id = $1 AND revoked_at IS NULL AND refresh_due_at <= now() AND (refresh_claimed_until IS NULL OR refresh_claimed_until < now())`,
        [id, claim, leaseSeconds],
      );
      return (rowCount ?? 0) > 0;
    },
    async refreshed(id, claim, providerTokensSealed, refreshIntervalSeconds) {
      const { rowCount } = await run(
        `UPDATE console_sessions SET provider_tokens_sealed = $3, refresh_due_at = now() + make_interval(secs => $4), refresh_claimed_until = NULL, refresh_claim = NULL
         WHERE id = $1 AND refresh_claim = $2 AND revoked_at IS NULL`,
        [id, claim, providerTokensSealed, refreshIntervalSeconds],
      );
      return (rowCount ?? 0) > 0;
    },
    async releaseRefresh(id, claim) {
      await run('UPDATE console_sessions SET refresh_claimed_until = NULL, refresh_claim = NULL WHERE id = $1 AND refresh_claim = $2', [id, claim]);
    },
    async revoke(id) {
      const { rowCount } = await run('UPDATE console_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
      return (rowCount ?? 0) > 0;
    },
    async revokeSso() {
      const { rowCount } = await run('UPDATE console_sessions SET revoked_at = now() WHERE issuer IS NOT NULL AND revoked_at IS NULL');
      return rowCount ?? 0;
    },
  };
}
