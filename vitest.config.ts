import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test-support/vitest/longest-first-sequencer.ts';

// Where each test file runs (see docs/testing.md):
// - unit: no database and no real runtime — pure packages, and controller files that touch no
//   state (drivers against stand-in processes, the worker loop on an empty fake database). Once.
// - pglite, postgres: everything that touches state, once per engine. Each file gets its own
//   database copied from one migrated template per run (test-support/vitest/*-template.global.ts).
// - runtime: the agent runtime against the real OpenClaw CLI and the run's one fixture npm registry.
// - docker: the runtime image and the docker ComputeDriver on the real Docker engine (dockerd must
//   run; the image is built from this tree on a base made here, test-support/docker/).
// - e2e: the controller with the local ComputeDriver and the real runtime through the HTTP API
//   (PostgreSQL), and the `occ` CLI against a real `occ up` (embedded PGlite).
const dbFree = [
  'apps/controller/test/core/authentication-cache.test.ts',
  'apps/controller/test/deploy/worker-loop.test.ts',
  // Drivers are tested against their peers (stand-in runtimes, fake catalogs), never the state.
  'apps/controller/test/drivers/**/*.test.ts',
  'apps/controller/test/unit/**/*.test.ts',
  // The console's static files, served by an app with no dependencies.
  'apps/controller/test/http/console-assets.test.ts',
  // The CLI's pure parts (formatting, parsing) touch no server.
  'apps/cli/test/unit/**/*.test.ts',
  'apps/console/test/**/*.test.ts',
];
// The console in a real browser (Debian's chromium) against a real `occ up`: e2e, not unit.
const consoleBrowser = 'apps/console/test/browser/**/*.test.ts';
const e2e = ['apps/controller/test/e2e/**/*.test.ts', 'apps/cli/test/e2e/**/*.test.ts', consoleBrowser];
const stateful = ['apps/controller/test/**/*.test.ts', 'apps/cli/test/**/*.test.ts'];
const statefulExclude = [...configDefaults.exclude, ...e2e, ...dbFree, 'apps/controller/test/docker/**'];
// What one engine cannot run at all is not collected there (rather than reported as skipped):
// PGlite is one connection (no racing pools, no worker processes); the migration-upgrade test
// builds an old schema in a fresh embedded database.
const postgresOnly = ['apps/controller/test/work-queue/concurrency.test.ts', 'apps/controller/test/reliability/**'];
// PGlite is PostgreSQL itself, compiled to WebAssembly: the same SQL, one connection, and three to
// four times the CPU per file. What it can get wrong is the adapter and the one connection (a
// transaction waiting on a second query deadlocks there), so it runs the store, the queue, the
// deploy flow with its worker, and every route as `occ` reaches it on the embedded default (the
// command tests, which run on PGlite only); the route-level files run once, on PostgreSQL.
// The metrics listener's files scrape a controller (promtool, a real Prometheus) and run once too;
// the gauges' SQL runs on both engines in apps/controller/test/state/observed-state.test.ts.
const postgresRoutesOnly = ['apps/controller/test/http/**', 'apps/controller/test/metrics/**'];
// The CLI's command tests speak HTTP to a controller: the engine behind it is not what they test.
const pgliteOnly = [
  'apps/controller/test/state/work-item-cancelled-migration.test.ts',
  'apps/controller/test/state/work-item-attempt-claims-migration.test.ts',
  'apps/cli/test/commands/**',
];

const registry = 'test-support/vitest/fixture-registry.global.ts';
const pgliteTemplate = 'test-support/vitest/pglite-template.global.ts';
const postgresTemplate = 'test-support/vitest/postgres-template.global.ts';
const cliBundle = 'test-support/vitest/cli-bundle.global.ts';
const consoleBuild = 'apps/console/test/browser/console-build.global.ts';
// The runtime image on the real Docker engine; each file builds the image if needed (test-support/docker/test-runtime-image.ts).
const docker = ['apps/controller/test/docker/**/*.test.ts'];
const slow = { testTimeout: 900_000, hookTimeout: 300_000 };
// The in-process projects share each worker's loaded modules between files (no fresh module graph
// per file): loading it again was most of their time (unit 78 s → 50 s, postgres 200 s → 120 s,
// measured alone). Every file still gets its own database and controller; no test mocks a module.
const shared = { isolate: false };

export default defineConfig({
  test: {
    // Three files at a time on a two-core machine: most of a runtime or e2e file's time is spent
    // waiting for child processes (OpenClaw, npm, the gateway, the app-server). Measured on a clean
    // clone of the same commit: 16 min 26 s with three; two took 21 min (one took 21.5 min earlier).
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test-support/vitest/slowest-files-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          ...shared,
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'apps/runtime/test/unit/**/*.test.ts', ...dbFree],
          exclude: [...configDefaults.exclude, consoleBrowser],
        },
      },
      {
        extends: true,
        test: {
          name: 'pglite',
          ...shared,
          include: stateful,
          exclude: [...statefulExclude, ...postgresOnly, ...postgresRoutesOnly],
          env: { OCC_TEST_DB: 'pglite' },
          globalSetup: [pgliteTemplate, cliBundle],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          ...shared,
          include: stateful,
          exclude: [...statefulExclude, ...pgliteOnly],
          env: { OCC_TEST_DB: 'postgres' },
          globalSetup: [postgresTemplate, cliBundle],
        },
      },
      {
        extends: true,
        test: { name: 'runtime', include: ['apps/runtime/test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'apps/runtime/test/unit/**'], globalSetup: [registry], ...slow },
      },
      { extends: true, test: { name: 'docker', include: docker, env: { OCC_TEST_DB: 'postgres' }, globalSetup: [postgresTemplate, registry], ...slow } },
      { extends: true, test: { name: 'e2e', include: e2e, env: { OCC_TEST_DB: 'postgres' }, globalSetup: [postgresTemplate, registry, cliBundle, consoleBuild], ...slow } },
    ],
  },
});
