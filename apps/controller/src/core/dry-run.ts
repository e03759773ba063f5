import type { StateStore } from './ports/state.ts';

/** Thrown inside a dry run's transaction to roll it back once the use case has answered. */
class DryRunRollback<T> {
  constructor(readonly result: T) {}
}

/**
 * The state a `?dryRun=true` request runs on (docs/api.md, "Dry runs"): the use case runs whole —
 * authorization, validation, the database's own constraints, its audit event — inside a
 * transaction that is then rolled back, so the answer is exactly the real one's and nothing is
 * kept. A one-statement `autocommit` write runs in a transaction too, to be rolled back alike.
 */
export function dryRunState(state: StateStore): StateStore {
  const rolledBack = async <T>(fn: Parameters<StateStore['transact']>[0]): Promise<T> => {
    try {
      await state.transact(async (uow) => {
        throw new DryRunRollback(await fn(uow));
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as T;
      throw error;
    }
    throw new Error('unreachable: a dry run always rolls back');
  };
  return {
    read: (fn) => state.read(fn),
    transact: (fn) => rolledBack(fn),
    autocommit: (fn) => rolledBack(fn),
    schemaStatus: () => state.schemaStatus(),
  };
}
