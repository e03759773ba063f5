import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/state/migrate.ts';
import { createPgliteDatabase } from '../../src/state/pglite-database.ts';

// The upgrade path of 0004 from a database an earlier build left behind (the same SQL runs on
// PostgreSQL; this builds the old schema in a fresh embedded database, so it runs once).
describe.runIf(process.env.OCC_TEST_DB === 'pglite')('migration 0004: overtaken work items become cancelled', () => {
  it('moves succeeded items with an overtaken code to cancelled, keeps the rest, and admits the new state', async () => {
    const db = await createPgliteDatabase(undefined, {});
    try {
      await db.exec('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const m of loadMigrations().filter((m) => m.version <= 3)) {
        await db.exec(m.sql);
        await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      const insert = (code: string, result: unknown) =>
        db.query(
          `INSERT INTO work_items (idempotency_key, id, kind, lane, namespace_id, agent_id, actor_id, state, max_attempts, deadline_at, reason_code, result)
           VALUES ($1, $2, 'reconcile_revision', 'l', 'n', 'a', 'p', 'succeeded', 3, now(), $3, $4::jsonb)`,
          [code, `wrk_${randomUUID()}`, code, JSON.stringify(result)],
        );
      for (const code of ['REVISION_SUPERSEDED', 'REVISION_STOPPED', 'STOP_SUPERSEDED']) await insert(code, { warnings: [] });
      await insert('REVISION_ACTIVATED', { warnings: [{ pluginId: 'p', code: 'PLUGIN_AUTH_REQUIRED' }] });

      expect(await migrate(db)).toBeGreaterThanOrEqual(4);

      const { rows } = await db.query<{ k: string; state: string; result: unknown }>('SELECT idempotency_key AS k, state, result FROM work_items ORDER BY k');
      expect(rows).toEqual([
        { k: 'REVISION_ACTIVATED', state: 'succeeded', result: { warnings: [{ pluginId: 'p', code: 'PLUGIN_AUTH_REQUIRED' }] } },
        { k: 'REVISION_STOPPED', state: 'cancelled', result: null },
        { k: 'REVISION_SUPERSEDED', state: 'cancelled', result: null },
        { k: 'STOP_SUPERSEDED', state: 'cancelled', result: null },
      ]);
      await expect(db.query("UPDATE work_items SET state = 'done' WHERE idempotency_key = 'REVISION_ACTIVATED'")).rejects.toThrow();
    } finally {
      await db.close();
    }
  });
});
