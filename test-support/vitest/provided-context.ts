// What the global setups hand to test files (vitest `inject`).
declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory dump (tar), which each test file loads instead of migrating. */
    pgliteTemplate: string;
    /** A migrated PostgreSQL database each test file's database is created from (CREATE DATABASE … TEMPLATE). */
    postgresTemplate: string;
    /** The one fixture npm registry (verdaccio) of this run, and what it published. */
    fixtureRegistry: { url: string; published: Record<'good' | 'rejected' | 'tampered', string> };
  }
}

export {};
