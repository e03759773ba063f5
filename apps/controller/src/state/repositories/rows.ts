/** Row-mapping helpers shared by the repositories. */

export const iso = (value: unknown): string => new Date(value as string | number | Date).toISOString();

export const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value));

/** A jsonb parameter: always serialized here, since `pg` would turn a JS array into a PostgreSQL array. */
export const jsonb = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

/** `id` keyset order in bytewise ("C") collation, the same on every server locale. */
export const afterId = (param: number) => `($${param}::text IS NULL OR id COLLATE "C" > $${param})`;

export const BY_ID = 'ORDER BY id COLLATE "C"';
