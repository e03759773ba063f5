import { PGlite } from '@electric-sql/pglite';
import type { Database, QueryResult, Queryable } from './database.ts';

export interface PgliteOptions {
  /** Start from this data directory dump (a `dumpDataDir` tarball) instead of an empty cluster. */
  loadDataDir?: Blob;
}

/** The embedded default: PGlite persisted in `dataDir` (in memory when absent). */
export async function createPgliteDatabase(dataDir?: string, options: PgliteOptions = {}): Promise<Database> {
  // One options object: PGlite ignores its second argument when the first is not a string.
  const db = new PGlite({ ...(dataDir ? { dataDir } : {}), ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}) });
  await db.waitReady;
  return wrapPglite(db);
}

/** The Database port over a ready PGlite instance. */
export function wrapPglite(db: PGlite): Database {
  const run = async <R>(q: Pick<PGlite, 'query'>, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const result = await q.query<R>(text, params as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    kind: 'pglite',
    query: (text, params) => run(db, text, params),
    transaction: (fn) => db.transaction((tx) => fn({ query: (text, params) => run(tx, text, params), exec: async (script) => void (await tx.exec(script)) } satisfies Queryable)),
    async exec(script) {
      await db.exec(script);
    },
    // In-process: PGlite delivers a committed NOTIFY to its own listeners; nothing to reconnect.
    async listen(channel, onNotify) {
      const stop = await db.listen(channel, () => onNotify());
      onNotify();
      return () => stop();
    },
    close: () => db.close(),
  };
}
