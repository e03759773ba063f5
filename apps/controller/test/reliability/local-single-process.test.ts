import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeController, type ComposedController } from '../../src/composition/compose.ts';
import { ComputeExclusivityError } from '../../src/composition/compute-exclusivity.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/test-database.ts';

// The local ComputeDriver runs Agents as child processes of one host: a second OCC process on
// the same database cannot see them and would start every Agent's gateway a second time. So the
// second process refuses to start (a PostgreSQL session lock per database), whether it is a
// second `occ up` or an `occ worker`.
const OCC = join(import.meta.dirname, '../../../cli/bin/occ.mjs');
let test: TestDatabase;
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-single-'));
  dirs.push(dir);
  return dir;
};
const compose = async (dir: string) =>
  composeController({
    database: test.db,
    secretKey: randomBytes(32),
    logger: false,
    consoleDirectory: null,
    compute: (await createComputeDriver('local', { dataDir: dir, env: process.env }))!,
    worker: { settings: { pollMs: 50 } },
  });

beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(async () => {
  await test.cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('one process per database drives the local ComputeDriver', () => {
  it('a second controller, or an `occ worker`, on the same database refuses to start and says why; once the first stops, another may', async () => {
    const first: ComposedController = await compose(dataDir());
    try {
      await expect(compose(dataDir())).rejects.toThrow(ComputeExclusivityError);
      await expect(compose(dataDir())).rejects.toThrow(/Another OCC process already runs the local ComputeDriver against this database/);

      const worker = spawnSync(process.execPath, [OCC, 'worker'], {
        env: { ...process.env, DATABASE_URL: test.connectionString, OCC_COMPUTE_DRIVER: 'local', OCC_DATA_DIR: dataDir(), OCC_SECRET_KEY: randomBytes(32).toString('base64') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(worker.status).not.toBe(0);
      expect(worker.stderr).toMatch(/Another OCC process already runs the local ComputeDriver against this database/);
      expect(worker.stderr).toMatch(/OCC_COMPUTE_DRIVER=docker or kubernetes/);
    } finally {
      await first.close();
    }
    const second = await compose(dataDir());
    await second.close();
  }, 120_000);

  it('the docker and kubernetes drivers take no such lock: several processes share one database', async () => {
    const docker = () => createComputeDriver('docker', { dataDir: dataDir(), env: { ...process.env, OCC_RUNTIME_IMAGE: 'occ-runtime:absent' } })!;
    const options = { database: test.db, secretKey: randomBytes(32), logger: false as const, consoleDirectory: null, worker: { settings: { pollMs: 50 } } };
    const a = await composeController({ ...options, compute: await docker() });
    const b = await composeController({ ...options, compute: await docker() });
    await b.close();
    await a.close();
  });
});
