import type { ApiKey, Principal } from '@occ/contracts';
import type { IamRepository } from '../../core/ports/iam-repository.ts';
import { conflict } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { BY_ID, afterId, iso, isoOrNull } from './rows.ts';

export interface PrincipalRow {
  id: string;
  kind: Principal['kind'];
  name: string;
  namespace_id: string | null;
  agent_id: string | null;
  created_at: Date | string;
}

interface ApiKeyRow {
  id: string;
  principal_id: string;
  name: string;
  prefix: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

const PRINCIPAL_COLUMNS = 'id, kind, name, namespace_id, agent_id, created_at';
const KEY_COLUMNS = 'id, principal_id, name, prefix, expires_at, revoked_at, created_at';

export const toPrincipal = (r: PrincipalRow): Principal => ({
  id: r.id,
  kind: r.kind,
  name: r.name,
  namespaceId: r.namespace_id,
  agentId: r.agent_id,
  createdAt: iso(r.created_at),
});

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  principalId: r.principal_id,
  name: r.name,
  prefix: r.prefix,
  expiresAt: iso(r.expires_at),
  revokedAt: isoOrNull(r.revoked_at),
  createdAt: iso(r.created_at),
});

const agentOwned = () => conflict("An Agent's service principal is deleted with its Agent.");

export type PrincipalMethods = Pick<IamRepository, 'insertPrincipal' | 'getPrincipal' | 'scanPrincipals' | 'deletePrincipal' | 'insertApiKey' | 'scanApiKeys' | 'revokeApiKey'>;

export function iamPrincipals(q: Queryable): PrincipalMethods {
  const run = runner(q);
  return {
    async insertPrincipal(p) {
      const { rows } = await run<PrincipalRow>(
        `INSERT INTO principals (id, kind, name, namespace_id, agent_id) VALUES ($1, $2, $3, $4, $5) RETURNING ${PRINCIPAL_COLUMNS}`,
        [p.id, p.kind, p.name, p.namespaceId ?? null, p.agentId ?? null],
        { namespace: true },
      );
      return toPrincipal(rows[0]!);
    },
    async getPrincipal(id) {
      const { rows } = await run<PrincipalRow>(`SELECT ${PRINCIPAL_COLUMNS} FROM principals WHERE id = $1`, [id]);
      return rows[0] ? toPrincipal(rows[0]) : null;
    },
    async scanPrincipals(page) {
      const { rows } = await run<PrincipalRow>(`SELECT ${PRINCIPAL_COLUMNS} FROM principals WHERE ${afterId(1)} ${BY_ID} LIMIT $2`, [page.after ?? null, page.limit]);
      return rows.map(toPrincipal);
    },
    async deletePrincipal(id) {
      // Keys, bindings and restrictions of the principal go with it (ON DELETE CASCADE).
      const { rowCount } = await run('DELETE FROM principals WHERE id = $1', [id], { referenced: agentOwned });
      return rowCount > 0;
    },
    async insertApiKey(k) {
      const { rows } = await run<ApiKeyRow>(
        `INSERT INTO api_keys (id, principal_id, name, key_hash, prefix, expires_at) VALUES ($1, $2, $3, $4, $5, $6::timestamptz) RETURNING ${KEY_COLUMNS}`,
        [k.id, k.principalId, k.name, Buffer.from(k.keyHash), k.prefix, k.expiresAt.toISOString()],
      );
      return toApiKey(rows[0]!);
    },
    async scanApiKeys(principalId, page) {
      const { rows } = await run<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE principal_id = $1 AND ${afterId(2)} ${BY_ID} LIMIT $3`, [
        principalId,
        page.after ?? null,
        page.limit,
      ]);
      return rows.map(toApiKey);
    },
    async revokeApiKey(principalId, keyId) {
      const { rowCount } = await run('UPDATE api_keys SET revoked_at = now() WHERE principal_id = $1 AND id = $2 AND revoked_at IS NULL', [principalId, keyId]);
      return rowCount > 0;
    },
  };
}
