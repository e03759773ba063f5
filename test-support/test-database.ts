import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { Database } from '../apps/controller/src/state/database.ts';
import { migrate } from '../apps/controller/src/state/migrate.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createPgliteDatabase } from '../apps/controller/src/state/pglite-database.ts';
import { databaseUrl, testDatabaseUrl, withAdminClient } from './vitest/database-templates.ts';
import './vitest/provided-context.ts';

export interface TestDatabase {
  db: Database;
  /** PostgreSQL only: a connection string to this database, for tests that open their own pools or processes. */
  connectionString?: string;
  cleanup(): Promise<void>;
}

/** What a global setup provided, if this file runs in a project that has one. */
function provided<K extends 'pgliteTemplate' | 'postgresTemplate'>(key: K): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    return undefined;
  }
}

let pgliteTemplate: Blob | null = null;

/**
 * A migrated, empty database for one test file: an in-memory PGlite, or (OCC_TEST_DB=postgres) a
 * database of its own on the real server, so files can run in parallel. Both start as a copy of
 * the run's migrated template (test-support/vitest/database-templates.ts); without one (a file run
 * outside the configured projects) they are migrated here. PostgreSQL being unreachable is a test
 * failure, never a skip.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (process.env.OCC_TEST_DB === 'postgres') return createPostgresTestDatabase();
  const templatePath = provided('pgliteTemplate');
  if (templatePath) pgliteTemplate ??= new Blob([readFileSync(templatePath)]);
  const db = await createPgliteDatabase(undefined, templatePath && pgliteTemplate ? { loadDataDir: pgliteTemplate } : {});
  if (!templatePath) await migrated(db, () => db.close());
  return { db, cleanup: () => db.close() };
}

async function createPostgresTestDatabase(): Promise<TestDatabase> {
  const serverUrl = testDatabaseUrl();
  const template = provided('postgresTemplate');
  const name = `occ_t_${randomBytes(8).toString('hex')}`;
  await withAdminClient(serverUrl, (c) => c.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`));
  const connectionString = databaseUrl(serverUrl, name);
  const db = createPgDatabase({ connectionString });
  const cleanup = async () => {
    await db.close();
    await withAdminClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };
  if (!template) await migrated(db, cleanup);
  return { db, connectionString, cleanup };
}

async function migrated(db: Database, cleanup: () => Promise<void>): Promise<void> {
  try {
    await migrate(db);
  } catch (error) {
    await cleanup();
    throw error;
  }
}
