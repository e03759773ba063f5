import {
  composeWorker,
  createAesGcmSecretDriver,
  createComputeDriver,
  createPgDatabase,
  existingSecretKey,
  holdComputeExclusivity,
  parseMetricsAddress,
  startMetricsListener,
} from '@occ/controller';
import { resolve } from 'node:path';
import { parseFlags } from '../../args.ts';
import { untilStopSignal } from './stop-signal.ts';

const USAGE = `occ worker [--lease-ms N] [--poll-ms N] [--ensure-active-ms N]

Runs a reconcile worker against the PostgreSQL at DATABASE_URL, with the ComputeDriver named
by OCC_COMPUTE_DRIVER. Run as many as you like against one database: claims are leased and
fenced, and each Agent's work runs on one worker at a time. Stops cleanly on SIGINT, SIGTERM and SIGHUP.
OCC_COMPUTE_DRIVER=local supervises runtimes as children of this process, under
$OCC_DATA_DIR/compute/local: one process per database (a second one, \`occ up\` or \`occ worker\`,
refuses to start); docker and kubernetes run any number.
Every --ensure-active-ms (default 60000; 0: never) the worker checks that each running Agent's
active revision still runs on its compute target, and starts it again when nothing of it runs.
Runtimes receive the Secrets their Configuration binds, opened with the controller's key:
OCC_SECRET_KEY, or the secret-key file in $OCC_DATA_DIR written by the controller.
OCC_METRICS_ADDRESS=host:port serves this worker's Prometheus metrics at GET /metrics
(off when unset; no authentication: loopback or a private network, docs/observability.md).`;

export async function worker(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help')) {
    console.log(USAGE);
    return 0;
  }
  const flags = parseFlags(argv, ['lease-ms', 'poll-ms', 'ensure-active-ms']);
  for (const name of ['lease-ms', 'poll-ms'] as const) {
    const value = flags[name];
    if (value !== undefined && !(Number.isInteger(Number(value)) && Number(value) > 0)) throw new Error(`--${name} must be a positive integer (milliseconds)`);
  }
  const ensureEvery = flags['ensure-active-ms'];
  if (ensureEvery !== undefined && !(Number.isInteger(Number(ensureEvery)) && Number(ensureEvery) >= 0)) {
    throw new Error('--ensure-active-ms must be 0 (never) or a positive integer (milliseconds)');
  }
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required: workers share one PostgreSQL with the controller.');
  const metricsAddress = parseMetricsAddress(env.OCC_METRICS_ADDRESS);
  const dataDir = resolve(env.OCC_DATA_DIR ?? '.occ-data');
  // Runtimes get the Secrets their Configuration binds: the worker opens them with the controller's key.
  const secrets = createAesGcmSecretDriver(existingSecretKey(env, dataDir));
  const compute = await createComputeDriver(env.OCC_COMPUTE_DRIVER, { dataDir, env });
  if (!compute) throw new Error('OCC_COMPUTE_DRIVER is required: a worker needs a ComputeDriver to reconcile revisions.');
  const database = createPgDatabase({ connectionString: env.DATABASE_URL });
  let exclusivity: Awaited<ReturnType<typeof holdComputeExclusivity>> = null;
  let metrics: Awaited<ReturnType<typeof startMetricsListener>> | null = null;
  try {
    exclusivity = await holdComputeExclusivity(database, compute);
    metrics = metricsAddress ? await startMetricsListener(metricsAddress, database) : null;
  } catch (error) {
    await exclusivity?.release();
    await database.close();
    throw error;
  }
  const running = composeWorker({
    database,
    compute,
    secrets,
    settings: {
      ...(flags['lease-ms'] ? { leaseMs: Number(flags['lease-ms']) } : {}),
      ...(flags['poll-ms'] ? { pollMs: Number(flags['poll-ms']) } : {}),
      ...(ensureEvery !== undefined ? { ensureActiveMs: Number(ensureEvery) } : {}),
    },
    ...(metrics ? { metrics: metrics.recorder } : {}),
  });
  console.log(`OCC worker ${running.deps.workerId} is polling (ComputeDriver ${compute.id})`);
  if (metrics) console.log(`Metrics: ${metrics.url}  (OCC_METRICS_ADDRESS)`);
  await untilStopSignal();
  await running.stop();
  await metrics?.close();
  await exclusivity?.release();
  await database.close();
  return 0;
}
