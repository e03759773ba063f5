import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import type { ComputeDriver } from '../apps/controller/src/core/ports/compute-driver.ts';

/**
 * What the worker does after it starts (worker/recover-active.ts), for ComputeDriver tests that
 * run without a database: each revision "the pointers name" is restored, in order. The worker's
 * own reading of the pointers is tested against both databases (recover-active.test.ts).
 */
export async function restoreAsTheWorker(driver: ComputeDriver, pointers: readonly { revision: AgentRevision; manifest: RuntimeManifest }[]): Promise<void> {
  for (const { revision, manifest } of pointers) await driver.restoreRevision(revision, manifest, { kind: 'recovery' }, { signal: AbortSignal.timeout(10_000) });
}
