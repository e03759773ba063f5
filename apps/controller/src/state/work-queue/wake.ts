import type { Queryable } from '../database.ts';

/**
 * The channel enqueues NOTIFY and idle workers LISTEN on. Notifications are per database, so the
 * name carries the schema too: installations (or test databases) in other schemas of the same
 * database do not wake each other. Hashed to stay within PostgreSQL's 63-byte identifiers.
 */
const CHANNEL = `'occ_work_' || left(md5(current_schema()), 16)`;

/** Announces claimable work; delivered when the surrounding transaction commits, never on rollback. */
export async function notifyWork(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify(${CHANNEL}, '')`);
}

/** The channel workers of this database and schema listen on. */
export async function workChannel(q: Queryable): Promise<string> {
  const { rows } = await q.query<{ channel: string }>(`SELECT ${CHANNEL} AS channel`);
  return rows[0]!.channel;
}
