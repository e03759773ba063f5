// One migrated database per run, per engine: test files copy it instead of migrating their own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { migrate } from '../../apps/controller/src/state/migrate.ts';
import { createPgDatabase } from '../../apps/controller/src/state/pg-database.ts';
import { wrapPglite } from '../../apps/controller/src/state/pglite-database.ts';

const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

export const testDatabaseUrl = () => process.env.OCC_TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;

/** The same server, another database. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs statements on one connection to the server's maintenance database. */
export async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `OCC_TEST_DB=postgres but PostgreSQL is unreachable at OCC_TEST_DATABASE_URL (${reason}). ` + 'Start it (pg_ctlcluster 15 main start) or run only the pglite project.',
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createPostgresTemplate(serverUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `occ_tpl_${randomBytes(6).toString('hex')}`;
  await withAdminClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const db = createPgDatabase({ connectionString: databaseUrl(serverUrl, name), max: 1 });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  return { name, drop: () => withAdminClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}) };
}

export async function createPgliteTemplate(): Promise<{ path: string; remove: () => Promise<void> }> {
  const pglite = new PGlite();
  try {
    await pglite.waitReady;
    await migrate(wrapPglite(pglite));
    const dump = await pglite.dumpDataDir('none');
    const dir = mkdtempSync(join(tmpdir(), 'occ-pglite-template-'));
    const path = join(dir, 'migrated.tar');
    writeFileSync(path, new Uint8Array(await dump.arrayBuffer()));
    return { path, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await pglite.close();
  }
}
