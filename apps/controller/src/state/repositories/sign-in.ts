import { OccError } from '../../core/errors.ts';
import type { SignInAttempt, SignInProviderRecord, SignInRepository } from '../../core/ports/sign-in-repository.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { iso } from './rows.ts';

interface ProviderRow {
  issuer: string;
  client_id: string;
  client_secret_namespace_id: string;
  client_secret_id: string;
  public_url: string;
  scopes: string[];
  groups_claim: string;
  refresh_interval_seconds: number;
  updated_at: Date;
}

interface AttemptRow {
  kind: 'browser' | 'device';
  browser_hash: Uint8Array | null;
  nonce: string | null;
  code_verifier: string | null;
  device_code_sealed: string | null;
  interval_seconds: number | null;
  next_poll_at: Date | null;
  expires_at: Date;
  consumed_at: Date | null;
}

const PROVIDER = 'issuer, client_id, client_secret_namespace_id, client_secret_id, public_url, scopes, groups_claim, refresh_interval_seconds, updated_at';

const toProvider = (r: ProviderRow): SignInProviderRecord => ({
  issuer: r.issuer,
  clientId: r.client_id,
  clientSecretNamespaceId: r.client_secret_namespace_id,
  clientSecretId: r.client_secret_id,
  publicUrl: r.public_url,
  scopes: r.scopes,
  groupsClaim: r.groups_claim,
  refreshIntervalSeconds: r.refresh_interval_seconds,
  updatedAt: iso(r.updated_at),
});

const toAttempt = (r: AttemptRow): SignInAttempt | null => {
  const base = { expiresAt: new Date(r.expires_at), consumedAt: r.consumed_at ? new Date(r.consumed_at) : null };
  if (r.kind === 'browser' && r.browser_hash && r.nonce && r.code_verifier)
    return { kind: 'browser', browserHash: new Uint8Array(r.browser_hash), nonce: r.nonce, codeVerifier: r.code_verifier, ...base };
  if (r.kind === 'device' && r.device_code_sealed)
    return { kind: 'device', deviceCodeSealed: r.device_code_sealed, intervalSeconds: r.interval_seconds ?? 5, nextPollAt: new Date(r.next_poll_at ?? 0), ...base };
  return null;
};

/** The client secret's Secret was deleted between the use case's check and this write. */
const secretGone = () => new OccError('NOT_FOUND', 'Secret not found.', [{ path: '/clientSecretId', code: 'INVALID_VALUE' }]);

export function signInRepository(q: Queryable): SignInRepository {
  const run = runner(q);
  return {
    async getProvider() {
      const { rows } = await run<ProviderRow>(`SELECT ${PROVIDER} FROM sign_in_provider`);
      return rows[0] ? toProvider(rows[0]) : null;
    },
    async putProvider(p) {
      const { rows } = await run<ProviderRow>(
        `INSERT INTO sign_in_provider (issuer, client_id, client_secret_namespace_id, client_secret_id, public_url, scopes, groups_claim, refresh_interval_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (singleton) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
           client_secret_namespace_id = EXCLUDED.client_secret_namespace_id, client_secret_id = EXCLUDED.client_secret_id,
           public_url = EXCLUDED.public_url, scopes = EXCLUDED.scopes, groups_claim = EXCLUDED.groups_claim,
           refresh_interval_seconds = EXCLUDED.refresh_interval_seconds, updated_at = now()
         RETURNING ${PROVIDER}`,
        [p.issuer, p.clientId, p.clientSecretNamespaceId, p.clientSecretId, p.publicUrl, p.scopes, p.groupsClaim, p.refreshIntervalSeconds],
        { foreignKeys: { sign_in_provider_client_secret_fkey: secretGone } },
      );
      return toProvider(rows[0]!);
    },
    async deleteProvider() {
      const { rows } = await run<ProviderRow>(`DELETE FROM sign_in_provider RETURNING ${PROVIDER}`);
      return rows[0] ? toProvider(rows[0]) : null;
    },
    async principalOf(issuer, subject) {
      const { rows } = await run<{ principal_id: string }>('SELECT principal_id FROM external_identities WHERE issuer = $1 AND subject = $2', [issuer, subject]);
      return rows[0]?.principal_id ?? null;
    },
    async linkIdentity(issuer, subject, principalId) {
      // A concurrent first sign-in of the same person waits here for the other's commit, then links nothing.
      const { rows } = await run<{ principal_id: string }>(
        'INSERT INTO external_identities (issuer, subject, principal_id) VALUES ($1, $2, $3) ON CONFLICT (issuer, subject) DO NOTHING RETURNING principal_id',
        [issuer, subject, principalId],
      );
      return rows.length > 0;
    },
    async identityLinked(principalId) {
      const { rows } = await run<{ linked: boolean }>('SELECT EXISTS (SELECT 1 FROM external_identities WHERE principal_id = $1) AS linked', [principalId]);
      return rows[0]?.linked === true;
    },
    async subjectOf(issuer, principalId) {
      const { rows } = await run<{ subject: string }>('SELECT subject FROM external_identities WHERE issuer = $1 AND principal_id = $2', [issuer, principalId]);
      return rows[0]?.subject ?? null;
    },
    async insertAttempt(idHash, a) {
      await run(
        `INSERT INTO sign_in_attempts (id_hash, kind, browser_hash, nonce, code_verifier, device_code_sealed, interval_seconds, next_poll_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        a.kind === 'browser'
          ? [Buffer.from(idHash), a.kind, Buffer.from(a.browserHash), a.nonce, a.codeVerifier, null, null, null, a.expiresAt]
          : [Buffer.from(idHash), a.kind, null, null, null, a.deviceCodeSealed, a.intervalSeconds, a.nextPollAt, a.expiresAt],
      );
    },
    async lockAttempt(idHash) {
      const { rows } = await run<AttemptRow>(
        `SELECT kind, browser_hash, nonce, code_verifier, device_code_sealed, interval_seconds, next_poll_at, expires_at, consumed_at
         FROM sign_in_attempts WHERE id_hash = $1 FOR UPDATE`,
        [Buffer.from(idHash)],
      );
      return rows[0] ? toAttempt(rows[0]) : null;
    },
    async consumeAttempt(idHash) {
      await run('UPDATE sign_in_attempts SET consumed_at = now() WHERE id_hash = $1', [Buffer.from(idHash)]);
    },
    async deferAttempt(idHash, intervalSeconds) {
      await run('UPDATE sign_in_attempts SET interval_seconds = $2::integer, next_poll_at = now() + make_interval(secs => $2::integer) WHERE id_hash = $1', [
        Buffer.from(idHash),
        intervalSeconds,
      ]);
    },
    async purgeAttempts() {
      const { rowCount } = await run("DELETE FROM sign_in_attempts WHERE expires_at < now() - interval '1 day'");
      return rowCount ?? 0;
    },
  };
}
