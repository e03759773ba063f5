import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/state/migrate.ts';
import { createPgliteDatabase } from '../../src/state/pglite-database.ts';
import { createWorkQueue } from '../../src/state/work-queue/index.ts';

// The upgrade path of 0007 from a database an earlier build left behind (the same SQL runs on
// PostgreSQL; this builds the old schema in a fresh embedded database, so it runs once).
describe.runIf(process.env.OCC_TEST_DB === 'pglite')("migration 0007: each attempt's claim time", () => {
  it("gives earlier items one entry per attempt started (only the last time known), so the next claim is the next attempt's", async () => {
    const db = await createPgliteDatabase(undefined, {});
    try {
      await db.exec('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const m of loadMigrations().filter((m) => m.version <= 6)) {
        await db.exec(m.sql);
        await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      const last = '2026-12-01T10:00:00.000Z';
      const insert = (key: string, attempts: number, lastAttemptAt: string | null, state = 'succeeded') =>
        db.query(
          `INSERT INTO work_items (idempotency_key, id, kind, lane, namespace_id, agent_id, actor_id, state, attempts, max_attempts, deadline_at, last_attempt_at)
           VALUES ($1, $2, 'reconcile_revision', $1, 'n', 'a', 'p', $3, $4, 5, now() + interval '1 hour', $5)`,
          [key, `wrk_${randomUUID()}`, state, attempts, lastAttemptAt],
        );
      await insert('never-claimed', 0, null);
      await insert('once', 1, last);
      await insert('retried', 2, last, 'queued');

      expect(await migrate(db)).toBeGreaterThanOrEqual(7);

      const queue = createWorkQueue(db);
      expect((await queue.get('never-claimed'))!.attemptClaimedAt).toEqual([]);
      expect((await queue.get('once'))!.attemptClaimedAt).toEqual([last]);
      expect((await queue.get('retried'))!.attemptClaimedAt).toEqual([null, last]);
      // Its next claim is attempt 3, and its time is the third entry.
      const claim = await queue.claim('w', 5_000);
      expect(claim!.item).toMatchObject({ key: 'retried', attempts: 3, attemptClaimedAt: [null, last, claim!.item.lastAttemptAt] });
    } finally {
      await db.close();
    }
  });
});
