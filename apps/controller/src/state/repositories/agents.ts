import type { Agent, Approver, PluginMap } from '@occ/contracts';
import type { AgentRepository, AgentWrite } from '../../core/ports/agent-repository.ts';
import { notFound } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { countAgentsByPhase } from './agent-phases.ts';
import { AUDIT_COLUMNS, auditPlaceholders, auditValues } from './audit.ts';
import { BY_ID, afterId, iso, jsonb } from './rows.ts';

interface Row {
  id: string;
  namespace_id: string;
  name: string;
  configuration_id: string;
  harness: Agent['harness'];
  harness_auth_method: 'codex_pat' | null;
  harness_auth_secret_id: string | null;
  plugins: PluginMap;
  plugin_approvers: Approver[] | null;
  service_principal_id: string;
  desired_state: Agent['desiredState'];
  active_revision_id: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, namespace_id, name, configuration_id, harness, harness_auth_method, harness_auth_secret_id,
  plugins, plugin_approvers, service_principal_id, desired_state, active_revision_id, version, created_at, updated_at`;

const toAgent = (r: Row): Agent => ({
  id: r.id,
  namespaceId: r.namespace_id,
  name: r.name,
  configurationId: r.configuration_id,
  harness: r.harness,
  harnessAuth: r.harness_auth_method && r.harness_auth_secret_id ? { method: r.harness_auth_method, secretId: r.harness_auth_secret_id } : null,
  plugins: r.plugins,
  pluginApprovers: r.plugin_approvers,
  servicePrincipalId: r.service_principal_id,
  desiredState: r.desired_state,
  activeRevisionId: r.active_revision_id,
  version: r.version,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The desired-state columns, in the order the INSERT and UPDATE statements bind them. */
const desired = (a: AgentWrite) => [a.name, a.configurationId, a.harnessAuth?.method ?? null, a.harnessAuth?.secretId ?? null, jsonb(a.plugins), jsonb(a.pluginApprovers)];

const SET_DESIRED = `name = $3, configuration_id = $4, harness_auth_method = $5, harness_auth_secret_id = $6,
  plugins = $7::jsonb, plugin_approvers = $8::jsonb, version = version + 1, updated_at = now()`;

const UPDATE = `UPDATE agents SET ${SET_DESIRED} WHERE namespace_id = $1 AND id = $2 RETURNING ${COLUMNS}`;

// A data-modifying CTE always runs, and inserts the audit row only when the UPDATE matched:
// the version check, the change and its audit event are one round trip and one commit.
const UPDATE_AT_VERSION = `
WITH updated AS (
  UPDATE agents SET ${SET_DESIRED} WHERE namespace_id = $1 AND id = $2 AND version = $9 RETURNING ${COLUMNS}
), audited AS (
  INSERT INTO audit_events (${AUDIT_COLUMNS}) SELECT ${auditPlaceholders(10)} FROM updated
)
SELECT * FROM updated`;

// The audit summary of the written row, as the use case builds it for other updates; the
// caller's details (the new name, already redacted; what changed) are laid over it.
const RENAME_IN_PLACE = `
WITH updated AS (
  UPDATE agents SET name = $3::text, configuration_id = COALESCE($4::text, configuration_id), version = version + 1, updated_at = now()
  WHERE namespace_id = $1 AND id = $2 AND ($5::integer IS NULL OR version = $5) RETURNING ${COLUMNS}
), audited AS (
  INSERT INTO audit_events (${AUDIT_COLUMNS})
  SELECT ${auditPlaceholders(
    6,
    (details) => `jsonb_build_object(
      'configurationId', configuration_id, 'harnessAuthSecretId', harness_auth_secret_id, 'version', version,
      'pluginIds', (SELECT COALESCE(jsonb_agg(k ORDER BY k COLLATE "C"), '[]'::jsonb) FROM jsonb_object_keys(plugins) AS k)
    ) || ${details}`,
  )}
  FROM updated
)
SELECT * FROM updated`;

export function agentRepository(q: Queryable): AgentRepository {
  const run = runner(q);
  const one = async (namespaceId: string, id: string, suffix = '') => {
    const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM agents WHERE namespace_id = $1 AND id = $2 ${suffix}`, [namespaceId, id]);
    return rows[0] ? toAgent(rows[0]) : null;
  };
  return {
    async insert(a) {
      const { rows } = await run<Row>(
        `INSERT INTO agents (id, namespace_id, harness, service_principal_id, name, configuration_id,
           harness_auth_method, harness_auth_secret_id, plugins, plugin_approvers)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb) RETURNING ${COLUMNS}`,
        [a.id, a.namespaceId, a.harness, a.servicePrincipalId, ...desired(a)],
        { name: 'Agent', namespace: true },
      );
      return toAgent(rows[0]!);
    },
    get: (namespaceId, id) => one(namespaceId, id),
    getForUpdate: (namespaceId, id) => one(namespaceId, id, 'FOR UPDATE'),
    async scan(namespaceId, page) {
      const { rows } = await run<Row>(`SELECT ${COLUMNS} FROM agents WHERE namespace_id = $1 AND ${afterId(2)} ${BY_ID} LIMIT $3`, [namespaceId, page.after ?? null, page.limit]);
      return rows.map(toAgent);
    },
    async update(namespaceId, id, a) {
      const { rows } = await run<Row>(UPDATE, [namespaceId, id, ...desired(a)], { name: 'Agent' });
      if (!rows[0]) throw notFound('Agent');
      return toAgent(rows[0]);
    },
    async updateAtVersion(namespaceId, id, version, a, audit) {
      const { rows } = await run<Row>(UPDATE_AT_VERSION, [namespaceId, id, ...desired(a), version, ...auditValues(audit)], { name: 'Agent' });
      return rows[0] ? toAgent(rows[0]) : null;
    },
    async renameInPlace(namespaceId, id, change, expectedVersion, audit) {
      const params = [namespaceId, id, change.name, change.configurationId ?? null, expectedVersion ?? null, ...auditValues(audit)];
      const { rows } = await run<Row>(RENAME_IN_PLACE, params, { name: 'Agent' });
      return rows[0] ? toAgent(rows[0]) : null;
    },
    async delete(namespaceId, id) {
      const { rowCount } = await run('DELETE FROM agents WHERE namespace_id = $1 AND id = $2', [namespaceId, id]);
      return rowCount > 0;
    },
    async nextRevisionNumber(namespaceId, id) {
      const { rows } = await run<{ n: number }>(
        `UPDATE agents SET last_revision_number = last_revision_number + 1 WHERE namespace_id = $1 AND id = $2 RETURNING last_revision_number AS n`,
        [namespaceId, id],
      );
      if (!rows[0]) throw notFound('Agent');
      return rows[0].n;
    },
    async setDesiredState(namespaceId, id, state) {
      await run(`UPDATE agents SET desired_state = $3, updated_at = now() WHERE namespace_id = $1 AND id = $2`, [namespaceId, id, state]);
    },
    async compareAndSetActiveRevision(namespaceId, id, expected, next) {
      const { rowCount } = await run(
        `UPDATE agents SET active_revision_id = $4, updated_at = now()
         WHERE namespace_id = $1 AND id = $2 AND active_revision_id IS NOT DISTINCT FROM $3
           AND desired_state = CASE WHEN $4::text IS NULL THEN 'stopped' ELSE 'running' END`,
        [namespaceId, id, expected, next],
      );
      return rowCount === 1;
    },
    countByPhase: () => countAgentsByPhase(q),
  };
}
