/**
 * The one database port the state layer uses (PostgreSQL dialect only). Two adapters:
 * `pg` for an external PostgreSQL, PGlite for the embedded default. Same SQL on both.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface HeldLock {
  release(): Promise<void>;
}

export interface Database extends Queryable {
  /** Runs `fn` in one transaction: commit when it resolves, roll back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Calls `onNotify` for each PostgreSQL notification on `channel` (a plain identifier); NOTIFY
   * is delivered when the notifying transaction commits. Resolves to a function that stops
   * listening. Notifications can be missed (while a connection is re-established), so
   * `onNotify` is also called after every (re)connection, and listeners still poll as a backstop.
   * Optional: a Database without it is polled only.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Holds the lock named `name` for as long as this process keeps it (a PostgreSQL session
   * advisory lock on a connection of its own, per schema): null when another process holds it.
   * Optional: an embedded database has one process by construction.
   */
  holdLock?(name: string): Promise<HeldLock | null>;
  readonly kind: 'postgres' | 'pglite';
}
