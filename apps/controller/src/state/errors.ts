import { OccError, conflict } from '../core/errors.ts';
import type { QueryResult, Queryable } from './database.ts';

/** What a constraint violation of one statement means to the caller. */
export interface Violations {
  /** 23505 on a `…name…` unique constraint: a duplicate name of this kind ("Secret", "Role"). */
  name?: string;
  /** 23503 on a `…_namespace_id_fkey` reference: the Namespace does not exist. */
  namespace?: boolean;
  /** 23503 raised while deleting: the row is still referred to. */
  referenced?: () => OccError;
  /** 23503 on one named foreign key: what that missing reference means (a row deleted since the use case read it). */
  foreignKeys?: Readonly<Record<string, () => OccError>>;
}

/**
 * A database failure without the driver's text: driver errors carry the statement, the
 * conflicting key values and (PGlite) the bound parameters, which may include sealed
 * values. Only the SQLSTATE and the constraint name survive.
 */
export class StateError extends Error {
  readonly sqlState: string;
  readonly constraint: string | undefined;

  constructor(sqlState: string, constraint: string | undefined) {
    super(`database error ${sqlState}${constraint ? ` (${constraint})` : ''}`);
    this.name = 'StateError';
    this.sqlState = sqlState;
    this.constraint = constraint;
  }
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

function fields(error: unknown): { code: string; constraint: string | undefined } | null {
  if (error instanceof StateError) return { code: error.sqlState, constraint: error.constraint };
  if (typeof error !== 'object' || error === null) return null;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string' || !SQLSTATE.test(code)) return null;
  return { code, constraint: typeof constraint === 'string' ? constraint : undefined };
}

const article = (kind: string) => (/^[aeiou]/i.test(kind) ? 'An' : 'A');

/** Translates a driver error into an OccError (known violations) or a StateError. */
function translate(error: unknown, on: Violations = {}): unknown {
  const f = fields(error);
  if (!f) return error;
  const constraint = f.constraint ?? '';
  if (f.code === '23505' && on.name && /(^|_)name_key$/.test(constraint)) {
    return conflict(`${article(on.name)} ${on.name} with this name already exists.`, [{ path: '/name', code: 'DUPLICATE_VALUE' }]);
  }
  if (f.code === '23503' && on.foreignKeys && Object.hasOwn(on.foreignKeys, constraint)) return on.foreignKeys[constraint]!();
  if (f.code === '23503' && on.referenced) return on.referenced();
  if (f.code === '23503' && on.namespace && constraint.endsWith('_namespace_id_fkey')) {
    return new OccError('NOT_FOUND', 'Namespace not found.');
  }
  return error instanceof StateError ? error : new StateError(f.code, f.constraint);
}

export type Run = <R = Record<string, unknown>>(text: string, params?: readonly unknown[], on?: Violations) => Promise<QueryResult<R>>;

/** Binds a Queryable into a runner whose every failure passes through `translate`. */
export function runner(q: Queryable): Run {
  return async function run<R>(text: string, params?: readonly unknown[], on?: Violations): Promise<QueryResult<R>> {
    try {
      return await q.query<R>(text, params);
    } catch (error) {
      throw translate(error, on);
    }
  };
}
