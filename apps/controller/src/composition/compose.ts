import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { invalidatingOnAccessChanges } from '../core/iam/access-changes.ts';
import { AuthenticationCache } from '../core/iam/authentication-cache.ts';
import { KeyedTurns } from '../core/keyed-turns.ts';
import { DEFAULT_WORK_SETTINGS, type ControllerDeps, type WorkSettings } from '../core/deps.ts';
import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import { createAesGcmSecretDriver } from '../drivers/secret/aes-gcm/index.ts';
import { resolveSecretKey } from '../drivers/secret/aes-gcm/key-source.ts';
import { createFastifyApp } from '../http/app.ts';
import type { Database, HeldLock } from '../state/database.ts';
import { migrate } from '../state/migrate.ts';
import { createPgDatabase } from '../state/pg-database.ts';
import { createPgliteDatabase } from '../state/pglite-database.ts';
import { createStateStore } from '../state/state-store.ts';
import { holdComputeExclusivity } from './compute-exclusivity.ts';
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
}

export interface ComposedController {
  app: FastifyInstance;
  deps: ControllerDeps;
  database: Database;
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
  const database = await openDatabase(config);
  await migrate(database);
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
    ...(config.compute ? { compute: config.compute } : {}),
  };
  const app = await createFastifyApp({
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
    if (!config.database) await database.close();
    throw error;
  }
  const worker = drives ? composeWorker({ ...config.worker, database, compute: drives, secrets: deps.secrets }) : null;
  return {
    app,
    deps,
    database,
    async close() {
      await worker?.stop();
      await exclusivity?.release();
      await app.close();
      if (!config.database) await database.close();
    },
  };
}
