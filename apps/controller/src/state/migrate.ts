import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The ordered, forward-only migrations shipped with this build. */
export function loadMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => FILE_PATTERN.test(f))
    .sort()
    .map((name) => ({ version: Number(FILE_PATTERN.exec(name)![1]), name, sql: readFileSync(MIGRATIONS_DIR + name, 'utf8') }));
}

export const LATEST_SCHEMA_VERSION = Math.max(...loadMigrations().map((m) => m.version));

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;

async function appliedVersion(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ v: number | null }>('SELECT max(version)::int AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so several
 * processes starting against one database apply each migration exactly once.
 * Refuses a database whose schema is newer than this build understands.
 */
export async function migrate(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7406392011)');
    await tx.exec(LEDGER);
    const current = await appliedVersion(tx);
    if (current > LATEST_SCHEMA_VERSION) {
      throw new Error(`database schema version ${current} is newer than this build supports (${LATEST_SCHEMA_VERSION})`);
    }
    for (const m of loadMigrations().filter((m) => m.version > current)) {
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    return LATEST_SCHEMA_VERSION;
  });
}

/** For /readyz: the applied schema version (0 when the ledger is missing). */
export async function schemaVersion(db: Queryable): Promise<number> {
  try {
    return await appliedVersion(db);
  } catch {
    return 0;
  }
}
