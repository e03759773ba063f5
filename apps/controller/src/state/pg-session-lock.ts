import pg from 'pg';
import type { HeldLock } from './database.ts';

/**
 * A PostgreSQL session advisory lock on a connection of its own, kept until released: null when
 * another session holds it. Losing the connection loses the lock (the server ends the session),
 * so the holder should not outlive its database anyway.
 */
export async function holdSessionLock(config: pg.ClientConfig, key: string): Promise<HeldLock | null> {
  const client = new pg.Client(config);
  // An idle lock connection that drops must not crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held', [`occ:${key}`]);
    if (rows[0]?.held !== true) {
      await client.end();
      return null;
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    release: async () => {
      await client.end().catch(() => {});
    },
  };
}
