// A reconcile worker in its own process, for the reliability tests (test support only).
// Config from the environment: DATABASE_URL, EFFECT_LOG (JSON lines), PREPARE_DELAY_MS,
// LEASE_MS, POLL_MS. Prints "ready" once polling.
import { randomBytes } from 'node:crypto';
import { composeWorker } from '../apps/controller/src/composition/worker.ts';
import { createAesGcmSecretDriver } from '../apps/controller/src/drivers/secret/aes-gcm/index.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import { createScriptedCompute } from './scripted-compute.ts';

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const database = createPgDatabase({ connectionString: env('DATABASE_URL'), max: 4 });
const delayMs = Number(env('PREPARE_DELAY_MS', '0'));
const compute = createScriptedCompute({ logFile: env('EFFECT_LOG'), prepare: () => ({ delayMs }) });
const worker = composeWorker({
  database,
  compute,
  // The scripted compute starts no runtime, so no Secret is ever opened with this key.
  secrets: createAesGcmSecretDriver(randomBytes(32)),
  workerId: `worker-${process.pid}`,
  settings: { leaseMs: Number(env('LEASE_MS', '1000')), pollMs: Number(env('POLL_MS', '50')), convergencePollMs: 50, ensureActiveMs: 0 },
  backoff: { baseMs: 50, capMs: 500 },
  log: (event, fields) => process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`),
});
process.stdout.write('ready\n');
const shutdown = async () => {
  await worker.stop();
  await database.close();
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown());
