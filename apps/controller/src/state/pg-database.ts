import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Database, QueryResult, Queryable } from './database.ts';
import { listenOnOwnConnection } from './pg-listener.ts';
import { holdSessionLock } from './pg-session-lock.ts';

// int8 (counts, sequences) as JS numbers: our values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `occ_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

export interface PgOptions {
  connectionString: string;
  /** Confines every connection to one schema (tests give each database its own). */
  schema?: string;
  max?: number;
}

export function createPgDatabase(options: PgOptions): Database {
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) throw new Error('schema must be a plain lowercase identifier');
  const connection = {
    connectionString: options.connectionString,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: options.max ?? 10 });
  // An idle client losing its connection (a restarted server) must not crash the process;
  // the pool drops it and the next query opens a fresh one.
  pool.on('error', () => {});
  const run = async <R>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    // Parameterised statements are prepared once per connection (named by their text), so
    // PostgreSQL plans each of our fixed queries once instead of on every call.
    const result = params && params.length > 0 ? await client.query({ name: statementName(text), text, values: params as unknown[] }) : await client.query(text);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    async transaction(fn) {
      const client = await pool.connect();
      // A connection lost while checked out (a restarted server) must fail this transaction,
      // not crash the process with an unhandled 'error' event; the broken client is discarded.
      let broken: Error | undefined;
      const onError = (error: Error) => void (broken = error);
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: (text, params) => run(client, text, params),
          exec: async (script) => void (await client.query(script)),
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => void (broken ??= rollbackError));
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    async exec(script) {
      await pool.query(script);
    },
    listen: (channel, onNotify) => listenOnOwnConnection(connection, channel, onNotify),
    holdLock: (name) => holdSessionLock(connection, `${options.schema ?? ''}:${name}`),
    close: () => pool.end(),
  };
}
