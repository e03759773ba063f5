import type { Configuration } from '@occ/contracts';
import type { ConfigurationRepository, ConfigurationWrite } from '../../core/ports/configuration-repository.ts';
import { conflict, notFound } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner, type Run } from '../errors.ts';
import { BY_ID, afterId, iso, jsonb } from './rows.ts';

interface Row {
  id: string;
  namespace_id: string;
  name: string;
  generation: number;
  config_values: Record<string, unknown>;
  secret_bindings: Record<string, { secretId: string }>;
  created_at: Date;
  updated_at: Date;
}

const BASE = 'id, namespace_id, name, generation, config_values, created_at, updated_at';
// The bindings travel with the row, so every read is one round trip.
const SELECT = `SELECT ${BASE}, COALESCE((
    SELECT jsonb_object_agg(b.env_name, jsonb_build_object('secretId', b.secret_id))
    FROM configuration_secret_bindings b WHERE b.configuration_id = c.id), '{}'::jsonb) AS secret_bindings
  FROM configurations c`;

const toConfiguration = (r: Row): Configuration => ({
  id: r.id,
  namespaceId: r.namespace_id,
  name: r.name,
  generation: r.generation,
  values: r.config_values,
  secretBindings: r.secret_bindings,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const stillReferred = () => conflict('The Configuration is still referred to.');

/** Replaces the Configuration's secret bindings: delete, then insert the new set in one statement. */
async function writeBindings(run: Run, namespaceId: string, id: string, bindings: ConfigurationWrite['secretBindings']): Promise<void> {
  await run('DELETE FROM configuration_secret_bindings WHERE configuration_id = $1', [id]);
  const pairs = Object.entries(bindings).map(([env, b]) => ({ env, secretId: b.secretId }));
  if (pairs.length === 0) return;
  await run(
    `INSERT INTO configuration_secret_bindings (namespace_id, configuration_id, env_name, secret_id)
     SELECT $1, $2, e.env, e."secretId" FROM jsonb_to_recordset($3::jsonb) AS e(env text, "secretId" text)`,
    [namespaceId, id, jsonb(pairs)],
  );
}

function stored(row: Row, bindings: ConfigurationWrite['secretBindings']): Configuration {
  const secretBindings = Object.fromEntries(Object.entries(bindings).map(([env, b]) => [env, { secretId: b.secretId }]));
  return toConfiguration({ ...row, secret_bindings: secretBindings });
}

export function configurationRepository(q: Queryable): ConfigurationRepository {
  const run = runner(q);
  const one = async (where: string, params: unknown[], suffix = '') => {
    const { rows } = await run<Row>(`${SELECT} WHERE ${where} ${suffix}`, params);
    return rows[0] ? toConfiguration(rows[0]) : null;
  };
  return {
    async insert(c) {
      const { rows } = await run<Row>(
        `INSERT INTO configurations (id, namespace_id, name, config_values) VALUES ($1, $2, $3, $4::jsonb) RETURNING ${BASE}`,
        [c.id, c.namespaceId, c.name, jsonb(c.values)],
        { name: 'Configuration', namespace: true },
      );
      await writeBindings(run, c.namespaceId, c.id, c.secretBindings);
      return stored(rows[0]!, c.secretBindings);
    },
    get: (namespaceId, id) => one('namespace_id = $1 AND id = $2', [namespaceId, id]),
    getForUpdate: (namespaceId, id) => one('namespace_id = $1 AND id = $2', [namespaceId, id], 'FOR UPDATE OF c'),
    async scan(namespaceId, page) {
      const { rows } = await run<Row>(`${SELECT} WHERE namespace_id = $1 AND ${afterId(2)} ${BY_ID} LIMIT $3`, [namespaceId, page.after ?? null, page.limit]);
      return rows.map(toConfiguration);
    },
    async update(namespaceId, id, c) {
      const { rows } = await run<Row>(
        `UPDATE configurations SET name = $3, config_values = $4::jsonb, generation = generation + 1, updated_at = now()
         WHERE namespace_id = $1 AND id = $2 RETURNING ${BASE}`,
        [namespaceId, id, c.name, jsonb(c.values)],
        { name: 'Configuration' },
      );
      if (!rows[0]) throw notFound('Configuration');
      await writeBindings(run, namespaceId, id, c.secretBindings);
      return stored(rows[0], c.secretBindings);
    },
    async referrers(namespaceId, id, limit) {
      const { rows } = await run<{ id: string }>(`SELECT id FROM agents WHERE namespace_id = $1 AND configuration_id = $2 ${BY_ID} LIMIT $3`, [namespaceId, id, limit]);
      return rows.map((r) => ({ kind: 'agents', id: r.id }));
    },
    async delete(namespaceId, id) {
      const { rowCount } = await run('DELETE FROM configurations WHERE namespace_id = $1 AND id = $2', [namespaceId, id], { referenced: stillReferred });
      return rowCount > 0;
    },
  };
}
