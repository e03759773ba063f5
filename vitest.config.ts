import { defineConfig } from 'vitest/config';

// Pure packages run once; everything that touches state runs twice, once on the
// embedded PGlite and once on a real PostgreSQL (OCC_TEST_DATABASE_URL).
const stateful = ['apps/controller/test/**/*.test.ts', 'apps/cli/test/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'] } },
      { extends: true, test: { name: 'pglite', include: stateful, env: { OCC_TEST_DB: 'pglite' } } },
      { extends: true, test: { name: 'postgres', include: stateful, env: { OCC_TEST_DB: 'postgres' } } },
      // The agent runtime against the real OpenClaw CLI and a local npm registry: each runtime start costs minutes.
      { extends: true, test: { name: 'runtime', include: ['apps/runtime/test/**/*.test.ts'], testTimeout: 900_000, hookTimeout: 300_000 } },
    ],
  },
});
