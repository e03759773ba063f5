import { randomBytes } from 'node:crypto';
import type { Database } from '../apps/controller/src/state/database.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createPgliteDatabase } from '../apps/controller/src/state/pglite-database.ts';

/**
 * The database a bench runs on: a fresh schema of OCC_BENCH_DATABASE_URL (or DATABASE_URL),
 * dropped by `dispose`, or an in-memory PGlite when neither is set.
 */
export async function openBenchDatabase(max = 20): Promise<{ database: Database; dispose: () => Promise<void> }> {
  const url = process.env.OCC_BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) {
    const database = await createPgliteDatabase();
    return { database, dispose: () => database.close() };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = createPgDatabase({ connectionString: url });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.close();
  const database = createPgDatabase({ connectionString: url, schema, max });
  return {
    database,
    dispose: async () => {
      await database.close();
      const dropper = createPgDatabase({ connectionString: url });
      await dropper.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.close();
    },
  };
}
