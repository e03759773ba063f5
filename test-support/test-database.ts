import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../apps/controller/src/state/database.ts';
import { migrate } from '../apps/controller/src/state/migrate.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createPgliteDatabase } from '../apps/controller/src/state/pglite-database.ts';

export interface TestDatabase {
  db: Database;
  cleanup(): Promise<void>;
}

const DEFAULT_URL = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** Runs one statement on its own connection; PostgreSQL being unreachable is a test failure, never a skip. */
async function admin(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `OCC_TEST_DB=postgres but PostgreSQL is unreachable at OCC_TEST_DATABASE_URL (${reason}). ` +
        'Start it (pg_ctlcluster 15 main start) or run only the pglite project.',
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A migrated, empty database for one test file: an in-memory PGlite, or (OCC_TEST_DB=postgres)
 * a fresh schema of its own on the real server, so files can run in parallel.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  let db: Database;
  let cleanup: () => Promise<void>;
  if (process.env.OCC_TEST_DB === 'postgres') {
    const connectionString = process.env.OCC_TEST_DATABASE_URL ?? DEFAULT_URL;
    const schema = `t_${randomBytes(8).toString('hex')}`;
    await admin(connectionString, `CREATE SCHEMA ${schema}`);
    db = createPgDatabase({ connectionString, schema });
    cleanup = async () => {
      await db.close();
      await admin(connectionString, `DROP SCHEMA ${schema} CASCADE`);
    };
  } else {
    db = await createPgliteDatabase();
    cleanup = () => db.close();
  }
  try {
    await migrate(db);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { db, cleanup };
}
