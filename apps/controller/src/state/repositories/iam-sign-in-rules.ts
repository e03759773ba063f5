import type { ResourceKind, SignInRule } from '@occ/contracts';
import type { SignInRuleMethods } from '../../core/ports/iam-repository.ts';
import { newId } from '../../core/ids.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { BY_ID, afterId, iso } from './rows.ts';

interface RuleRow {
  id: string;
  claim: string;
  value: string;
  role_id: string;
  namespace_id: string | null;
  resource_kind: ResourceKind | null;
  resource_id: string | null;
  created_at: Date;
}

const RULE = 'id, claim, value, role_id, namespace_id, resource_kind, resource_id, created_at';

const toRule = (r: RuleRow): SignInRule => ({
  id: r.id,
  claim: r.claim,
  value: r.value,
  roleId: r.role_id,
  namespaceId: r.namespace_id,
  resource: r.resource_kind !== null && r.resource_id !== null ? { kind: r.resource_kind, id: r.resource_id } : null,
  createdAt: iso(r.created_at),
});

export function iamSignInRules(q: Queryable): SignInRuleMethods {
  const run = runner(q);
  return {
    async insertSignInRule(r) {
      const { rows } = await run<RuleRow>(
        `INSERT INTO sign_in_rules (id, claim, value, role_id, namespace_id, resource_kind, resource_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${RULE}`,
        [r.id, r.claim, r.value, r.roleId, r.namespaceId, r.resource?.kind ?? null, r.resource?.id ?? null],
        { namespace: true },
      );
      return toRule(rows[0]!);
    },
    async getSignInRule(id) {
      const { rows } = await run<RuleRow>(`SELECT ${RULE} FROM sign_in_rules WHERE id = $1`, [id]);
      return rows[0] ? toRule(rows[0]) : null;
    },
    async scanSignInRules(page) {
      const { rows } = await run<RuleRow>(`SELECT ${RULE} FROM sign_in_rules WHERE ${afterId(1)} ${BY_ID} LIMIT $2`, [page.after ?? null, page.limit]);
      return rows.map(toRule);
    },
    async allSignInRules() {
      const { rows } = await run<RuleRow>(`SELECT ${RULE} FROM sign_in_rules ${BY_ID}`);
      return rows.map(toRule);
    },
    async deleteSignInRule(id) {
      const { rowCount } = await run('DELETE FROM sign_in_rules WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async deleteAllSignInBindings() {
      const { rowCount } = await run('DELETE FROM access_bindings WHERE sign_in_rule_id IS NOT NULL');
      return rowCount ?? 0;
    },
    async syncSignInBindings(principalId, ruleIds) {
      const { rows: revoked } = await run<{ sign_in_rule_id: string }>(
        'DELETE FROM access_bindings WHERE principal_id = $1 AND sign_in_rule_id IS NOT NULL AND NOT (sign_in_rule_id = ANY($2::text[])) RETURNING sign_in_rule_id',
        [principalId, [...ruleIds]],
      );
      const { rows: held } = await run<{ sign_in_rule_id: string }>('SELECT sign_in_rule_id FROM access_bindings WHERE principal_id = $1 AND sign_in_rule_id IS NOT NULL', [
        principalId,
      ]);
      const have = new Set(held.map((r) => r.sign_in_rule_id));
      const granted = ruleIds.filter((id) => !have.has(id));
      for (const ruleId of granted) {
        // The binding copies the rule's role and scope; the rule's deletion takes it along (ON DELETE CASCADE).
        // Another session of the same person refreshing at once may have granted it first.
        await run(
          `INSERT INTO access_bindings (id, principal_id, role_id, namespace_id, resource_kind, resource_id, sign_in_rule_id)
           SELECT $1, $2, role_id, namespace_id, resource_kind, resource_id, id FROM sign_in_rules WHERE id = $3
           ON CONFLICT (principal_id, sign_in_rule_id) WHERE sign_in_rule_id IS NOT NULL DO NOTHING`,
          [newId('access_binding'), principalId, ruleId],
        );
      }
      return { granted: [...granted].sort(), revoked: revoked.map((r) => r.sign_in_rule_id).sort() };
    },
  };
}
