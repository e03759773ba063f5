import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import type { Database, HeldLock } from '../state/database.ts';

/** `occ up` / `occ worker` refuse to drive a single-process ComputeDriver a second time against one database. */
export class ComputeExclusivityError extends Error {
  override readonly name = 'ComputeExclusivityError';
}

/**
 * Before a worker drives `compute`: a driver whose runtimes only this process can see (local)
 * takes the database's lock for it, so a second OCC process on the same database stops instead
 * of silently starting a second gateway for every Agent. Null when no lock is needed (another
 * driver, or an embedded database, which one process owns anyway).
 */
export async function holdComputeExclusivity(database: Database, compute: ComputeDriver): Promise<HeldLock | null> {
  if (!compute.singleProcess || !database.holdLock) return null;
  const held = await database.holdLock(`compute:${compute.id}`);
  if (held) return held;
  throw new ComputeExclusivityError(
    `Another OCC process already runs the ${compute.id} ComputeDriver against this database. The ${compute.id} driver keeps what it ` +
      'started in its own process (local: child processes of this host; ssh: the Secrets each start delivered and its supervision), so only one process may drive it: ' +
      'stop the other process, or use OCC_COMPUTE_DRIVER=docker or kubernetes to run more than one (docs/kubernetes.md).',
  );
}
