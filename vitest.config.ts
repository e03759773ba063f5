import { configDefaults, defineConfig } from 'vitest/config';

// Pure packages run once; everything that touches state runs twice, once on the
// embedded PGlite and once on a real PostgreSQL (OCC_TEST_DATABASE_URL).
const stateful = ['apps/controller/test/**/*.test.ts', 'apps/cli/test/**/*.test.ts'];
// Real runtimes through the HTTP API: once, on PostgreSQL only (project `e2e`).
const e2e = ['apps/controller/test/e2e/**/*.test.ts'];
const notE2e = [...configDefaults.exclude, ...e2e];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'] } },
      { extends: true, test: { name: 'pglite', include: stateful, exclude: notE2e, env: { OCC_TEST_DB: 'pglite' } } },
      { extends: true, test: { name: 'postgres', include: stateful, exclude: notE2e, env: { OCC_TEST_DB: 'postgres' } } },
      // The agent runtime against the real OpenClaw CLI and a local npm registry: each runtime start costs minutes.
      { extends: true, test: { name: 'runtime', include: ['apps/runtime/test/**/*.test.ts'], testTimeout: 900_000, hookTimeout: 300_000 } },
      // The controller with the local ComputeDriver, the real runtime, OpenClaw and npm registry: deploys cost minutes.
      { extends: true, test: { name: 'e2e', include: e2e, env: { OCC_TEST_DB: 'postgres' }, testTimeout: 900_000, hookTimeout: 300_000 } },
    ],
  },
});
