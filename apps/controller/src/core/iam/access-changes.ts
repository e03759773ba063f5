import type { IamRepository } from '../ports/iam-repository.ts';
import type { StateStore, UnitOfWork } from '../ports/state.ts';
import type { AuthenticationCache } from './authentication-cache.ts';

/**
 * Every IamRepository method, by what it does to what the authentication cache holds: `reads`;
 * `adds` a principal, key or role, which no cached entry refers to and which grants nothing until
 * bound; or `changes access`. A Record: a method added to the port is a type error here until
 * it is classified; at run time a method not listed counts as a change.
 */
const IAM_METHODS: Record<keyof IamRepository, 'reads' | 'adds' | 'changes access'> = {
  authenticate: 'reads',
  loadPolicy: 'reads',
  insertPrincipal: 'adds',
  getPrincipal: 'reads',
  scanPrincipals: 'reads',
  deletePrincipal: 'changes access',
  insertApiKey: 'adds',
  scanApiKeys: 'reads',
  revokeApiKey: 'changes access',
  insertRole: 'adds',
  getRole: 'reads',
  findRoleByName: 'reads',
  scanRoles: 'reads',
  roleInUse: 'reads',
  deleteRole: 'changes access',
  insertBinding: 'changes access',
  getBinding: 'reads',
  scanBindings: 'reads',
  deleteBinding: 'changes access',
  deleteGrantsOnResource: 'changes access',
  insertRestriction: 'changes access',
  getRestriction: 'reads',
  scanRestrictions: 'reads',
  deleteRestriction: 'changes access',
  // A new rule grants nothing until someone signs in (syncSignInBindings does the granting).
  insertSignInRule: 'adds',
  getSignInRule: 'reads',
  scanSignInRules: 'reads',
  allSignInRules: 'reads',
  deleteSignInRule: 'changes access',
  syncSignInBindings: 'changes access',
  deleteAllSignInBindings: 'changes access',
};

/** Whether calling `name` leaves every cached entry true (a method the table does not know never does). */
const keepsCache = (name: string | symbol): boolean =>
  typeof name === 'string' && Object.hasOwn(IAM_METHODS, name) && IAM_METHODS[name as keyof IamRepository] !== 'changes access';

/** `iam` with every method that may change access calling `changed` first. */
function watched(iam: IamRepository, changed: () => void): IamRepository {
  return new Proxy(iam, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || keepsCache(name)) return value;
      return (...args: unknown[]) => {
        changed();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * The state every use case writes through (composition/compose.ts): once a unit of work that
 * changed access policy through `uow.iam` is over (committed, or rolled back: forgetting is
 * always safe), the authentication cache forgets everything. A use case never invalidates by
 * hand, so a new IAM mutation cannot forget to. The clearing comes after the commit, so a read
 * that began before it cannot refill the cache with what it saw (AuthenticationCache's generations).
 */
export function invalidatingOnAccessChanges(state: StateStore, cache: AuthenticationCache): StateStore {
  const tracked = <T>(open: (fn: (uow: UnitOfWork) => Promise<T>) => Promise<T>, fn: (uow: UnitOfWork) => Promise<T>): Promise<T> => {
    let changed = false;
    const markChanged = () => {
      changed = true;
    };
    return open((uow) => fn({ ...uow, iam: watched(uow.iam, markChanged) })).finally(() => {
      if (changed) cache.invalidate();
    });
  };
  return {
    read: (fn) => tracked((f) => state.read(f), fn),
    transact: (fn) => tracked((f) => state.transact(f), fn),
    autocommit: (fn) => tracked((f) => state.autocommit(f), fn),
    schemaStatus: () => state.schemaStatus(),
  };
}
