import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { invalidatingOnAccessChanges } from '../core/iam/access-changes.ts';
import { AuthenticationCache } from '../core/iam/authentication-cache.ts';
import { KeyedTurns } from '../core/keyed-turns.ts';
import { DEFAULT_WORK_SETTINGS, type ControllerDeps, type WorkSettings } from '../core/deps.ts';
import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import { createOidcIdentityProvider } from '../drivers/identity/oidc/index.ts';
import { createAesGcmSecretDriver } from '../drivers/secret/aes-gcm/index.ts';
import { resolveSecretKey } from '../drivers/secret/aes-gcm/key-source.ts';
import { createFastifyApp } from '../http/app.ts';
import type { Database, HeldLock } from '../state/database.ts';
import { migrate } from '../state/migrate.ts';
import { createPgDatabase } from '../state/pg-database.ts';
import { createPgliteDatabase } from '../state/pglite-database.ts';
import { createStateStore } from '../state/state-store.ts';
import { holdComputeExclusivity } from './compute-exclusivity.ts';
import { parseMetricsAddress, startMetricsListener, type MetricsListener } from './metrics.ts';
import { createPluginDrivers, type PluginDriverSelection } from './plugin-drivers.ts';
import { composeWorker, type WorkerConfig } from './worker.ts';

const DEFAULT_AUTH_CACHE_MS = 1_000;
/** The console's build output (apps/console/dist), found from this module: the controller runs from its sources. */
export const DEFAULT_CONSOLE_DIRECTORY = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

export interface ControllerConfig {
  /** An external PostgreSQL; absent → embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** Holds the embedded database, the generated secret key and the admin key file. */
  dataDir?: string;
  /** An already-open database (tests); takes precedence over databaseUrl/dataDir. */
  database?: Database;
  secretKey?: Buffer;
  pluginDrivers?: PluginDriverSelection;
  logger?: FastifyServerOptions['logger'];
  bodyLimit?: number;
  now?: () => Date;
  /** The Installation's ComputeDriver (absent → deploys answer 501). */
  compute?: ComputeDriver;
  work?: Partial<WorkSettings>;
  /** How long another replica's policy change may take to reach this one (0 disables the cache). */
  authCacheMs?: number;
  /** Run a reconcile worker in this process when a ComputeDriver is configured (default true). */
  worker?: false | Omit<WorkerConfig, 'database' | 'compute' | 'secrets'>;
  /** The built web console served at `/` (default: apps/console/dist); null serves none. */
  consoleDirectory?: string | null;
  /**
   * `OCC_METRICS_ADDRESS`'s value: `host:port` of the metrics listener, apart from the API (port 0 =
   * any free port; docs/observability.md). Absent or empty: no metrics. A bad value stops startup.
   */
  metricsAddress?: string;
}

export interface ComposedController {
  app: FastifyInstance;
  deps: ControllerDeps;
  database: Database;
  /** The metrics listener, when `metricsAddress` turned it on: its scrape URL as bound. */
  metrics: { url: string } | null;
  close(): Promise<void>;
}

async function openDatabase(config: ControllerConfig): Promise<Database> {
  if (config.database) return config.database;
  if (config.databaseUrl) return createPgDatabase({ connectionString: config.databaseUrl });
  if (!config.dataDir) throw new Error('A data directory or DATABASE_URL is required.');
  const pgdata = join(config.dataDir, 'pgdata');
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  return createPgliteDatabase(pgdata);
}

/** The composition root: configuration → database → drivers → use-case deps → HTTP app. */
export async function composeController(config: ControllerConfig): Promise<ComposedController> {
  // A bad setting stops startup before anything is opened.
  const metricsAddress = parseMetricsAddress(config.metricsAddress);
  const database = await openDatabase(config);
  await migrate(database);
  // The listener's own warnings (a scrape that could not read the database) go to the app's log.
  let app: FastifyInstance | undefined;
  let metrics: MetricsListener | null = null;
  try {
    metrics = metricsAddress ? await startMetricsListener(metricsAddress, database, (event, fields) => app?.log.warn(fields, event)) : null;
  } catch (error) {
    if (!config.database) await database.close();
    throw error;
  }
  const secretKey = config.secretKey ?? resolveSecretKey(process.env, config.dataDir);
  const authCache = new AuthenticationCache(config.authCacheMs ?? DEFAULT_AUTH_CACHE_MS);
  const deps: ControllerDeps = {
    state: invalidatingOnAccessChanges(createStateStore(database), authCache),
    secrets: createAesGcmSecretDriver(secretKey),
    pluginDrivers: createPluginDrivers(config.pluginDrivers),
    now: config.now ?? (() => new Date()),
    work: { ...DEFAULT_WORK_SETTINGS, ...config.work },
    authCache,
    agentWrites: new KeyedTurns(),
    identity: createOidcIdentityProvider(),
    ...(config.compute ? { compute: config.compute } : {}),
    ...(metrics ? { metrics: metrics.recorder } : {}),
  };
  app = await createFastifyApp({
    deps,
    logger: config.logger,
    consoleDirectory: config.consoleDirectory === undefined ? DEFAULT_CONSOLE_DIRECTORY : config.consoleDirectory,
    ...(config.bodyLimit ? { bodyLimit: config.bodyLimit } : {}),
  });
  const drives = config.compute && config.worker !== false ? config.compute : null;
  let exclusivity: HeldLock | null = null;
  try {
    exclusivity = drives ? await holdComputeExclusivity(database, drives) : null;
  } catch (error) {
    await app.close();
    await metrics?.close();
    if (!config.database) await database.close();
    throw error;
  }
  const worker = drives ? composeWorker({ ...config.worker, database, compute: drives, secrets: deps.secrets, ...(metrics ? { metrics: metrics.recorder } : {}) }) : null;
  const served = app;
  return {
    app: served,
    deps,
    database,
    metrics: metrics ? { url: metrics.url } : null,
    async close() {
      await worker?.stop();
      await exclusivity?.release();
      await served.close();
      await metrics?.close();
      if (!config.database) await database.close();
    },
  };
}
