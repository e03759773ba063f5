import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAesGcmSecretDriver } from '../../src/drivers/secret/aes-gcm/index.ts';
import { composeWorker } from '../../src/composition/worker.ts';
import type { Database } from '../../src/state/database.ts';
import { sleep } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';

/** The scripted compute starts no runtime: no Secret is ever opened. */
const unusedSecrets = createAesGcmSecretDriver(randomBytes(32));

/** A database with nothing to claim, ever: every claim finds no row. */
function emptyDatabase(): Database & { queries: number } {
  const db: Database & { queries: number } = {
    kind: 'postgres',
    queries: 0,
    async query() {
      db.queries++;
      return { rows: [], rowCount: 0 };
    },
    async exec() {},
    transaction: (fn) => fn(db),
    async close() {},
  };
  return db;
}

describe('the worker loop while idle', () => {
  it('polls an empty queue for a long time without accumulating listeners, and stops promptly', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const db = emptyDatabase();
      const worker = composeWorker({ database: db, compute: createScriptedCompute(), secrets: unusedSecrets, settings: { pollMs: 2 } });
      await sleep(400);
      // Many idle polls happened (each one sleeps on the loop's stop signal) …
      expect(db.queries).toBeGreaterThan(20);
      const stoppedAt = Date.now();
      await worker.stop();
      expect(Date.now() - stoppedAt).toBeLessThan(1_000);
      await sleep(20); // warnings are emitted on a later tick
      // … yet no listener was left behind on that signal: a long-running worker must not leak one per poll.
      const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
      expect(leaks.map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('an idle worker with a long poll interval still stops at once', async () => {
    const worker = composeWorker({ database: emptyDatabase(), compute: createScriptedCompute(), secrets: unusedSecrets, settings: { pollMs: 60_000 } });
    await sleep(50);
    const stoppedAt = Date.now();
    await worker.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
  });
});
