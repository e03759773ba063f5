import { ENV_NAME_PATTERN } from '@occ/contracts';

/**
 * The Secret bindings editor's rows (environment variable → Secret) and the API's map. Rows keep
 * a stable key so Preact keeps focus in the row being edited when others are added or removed.
 */
export interface BindingRow {
  key: number;
  env: string;
  secretId: string;
}

export interface RowProblems {
  env: string[];
  secret: string[];
}

let nextKey = 1;
export const newBindingRow = (env = '', secretId = ''): BindingRow => ({ key: nextKey++, env, secretId });

export function rowsFromBindings(bindings: Record<string, { secretId: string }>): BindingRow[] {
  return Object.entries(bindings).map(([env, { secretId }]) => newBindingRow(env, secretId));
}

const envName = new RegExp(ENV_NAME_PATTERN);

/**
 * The map to send, or the problems per row key (with the API's detail codes, so they read the
 * same as the server's). An entirely empty row is ignored: it is the one "Add" left unfilled.
 */
export function bindingsFromRows(rows: readonly BindingRow[]): { bindings: Record<string, { secretId: string }>; problems: Map<number, RowProblems> } {
  const bindings: Record<string, { secretId: string }> = {};
  const problems = new Map<number, RowProblems>();
  const seen = new Set<string>();
  for (const row of rows) {
    const env = row.env.trim();
    if (env === '' && row.secretId === '') continue;
    const found: RowProblems = { env: [], secret: [] };
    if (env === '') found.env.push('REQUIRED');
    else if (!envName.test(env)) found.env.push('INVALID_FORMAT');
    else if (seen.has(env)) found.env.push('DUPLICATE_VALUE');
    if (row.secretId === '') found.secret.push('REQUIRED');
    seen.add(env);
    if (found.env.length > 0 || found.secret.length > 0) problems.set(row.key, found);
    else bindings[env] = { secretId: row.secretId };
  }
  return { bindings, problems };
}
