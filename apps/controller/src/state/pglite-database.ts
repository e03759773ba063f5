import { PGlite } from '@electric-sql/pglite';
import type { Database, QueryResult, Queryable } from './database.ts';

/** The embedded default: PGlite persisted in `dataDir` (in memory when absent). */
export async function createPgliteDatabase(dataDir?: string): Promise<Database> {
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  const run = async <R>(q: Pick<PGlite, 'query'>, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const result = await q.query<R>(text, params as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    kind: 'pglite',
    query: (text, params) => run(db, text, params),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({ query: (text, params) => run(tx, text, params), exec: async (script) => void (await tx.exec(script)) } satisfies Queryable),
      ),
    async exec(script) {
      await db.exec(script);
    },
    close: () => db.close(),
  };
}
