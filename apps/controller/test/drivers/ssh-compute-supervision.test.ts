import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostLaunchCommand } from '@occ/runtime/launch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import { createSshComputeDriver } from '../../src/drivers/compute/ssh/index.ts';
import { sshComputeSettings } from '../../src/drivers/compute/ssh/settings.ts';
import { runtimeManifest } from '../../src/worker/runtime-manifest.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { sshDriverEnv, startRealSshd, type RealSshd } from '../../../../test-support/ssh/real-sshd.ts';
import { prepareSettled, probeStandInGateway, standInRevision, type StandInScenario } from '../../../../test-support/stand-in-runtime.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

// The ssh ComputeDriver's supervision on a real sshd, with the stand-in runtime on the host (its
// outcome scripted per start): what a check does with an active runtime that crashed or whose
// startup failed. The real runtime on the host: apps/controller/test/e2e/ssh-compute.test.ts.
const WORKSPACE = fileURLToPath(new URL('../../../../', import.meta.url));
const STAND_IN = fileURLToPath(new URL('../../../../test-support/stand-in-runtime.mjs', import.meta.url));

let sshd: RealSshd;
let root: string;
let driver: ComputeDriver;
const events: Array<{ event: string; fields: Record<string, unknown> }> = [];

beforeAll(async () => {
  sshd = await startRealSshd();
  root = mkdtempSync(join(tmpdir(), 'occ-ssh-supervision-'));
  const host = hostLaunchCommand(WORKSPACE);
  driver = createSshComputeDriver({
    settings: sshComputeSettings(sshDriverEnv(sshd, WORKSPACE)),
    rootDir: root,
    probeGateway: probeStandInGateway,
    launch: { ...host, runtimeArgs: [STAND_IN] },
    superviseEveryMs: 250,
    readyWaitMs: 300,
    stopGraceSeconds: 2,
    backoff: { baseMs: 100, capMs: 1_000, resetAfterMs: 30_000 },
    log: (event, fields) => events.push({ event, fields }),
  });
  driver.start?.(new StaticStartAuthority());
}, 60_000);

afterAll(async () => {
  await driver?.close?.();
  await sshd?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A revision of a fresh Agent without plugins (all the ssh target runs), its runtime playing `scenario`. */
function sshRevision(scenario: StandInScenario) {
  const revision = { ...standInRevision(scenario, { plugins: {} }).revision, computeDriverId: 'ssh' };
  return { revision, manifest: runtimeManifest(revision) };
}

const hostRevisionDir = (agentId: string, revisionId: string) => join(sshd.home, '.occ', 'agents', agentId, 'revisions', revisionId);
const startsOf = (agentId: string, revisionId: string) =>
  readFileSync(join(hostRevisionDir(agentId, revisionId), 'stand-in-starts'), 'utf8')
    .trim()
    .split('\n');
const describeRuntime = (revision: { agentId: string; namespaceId: string; id: string }) => {
  if (!driver.describeRuntime) throw new Error('the ssh ComputeDriver describes its runtimes');
  return driver.describeRuntime(revision, revision.id);
};
const pidOf = (agentId: string, revisionId: string) => Number(readFileSync(join(hostRevisionDir(agentId, revisionId), 'runtime.pid'), 'utf8'));

describe('ssh ComputeDriver: supervision of the active runtime', () => {
  it('[S-2] a restart whose startup fails is stopped and started again with backoff until a start serves, not left running unready', async () => {
    // Start 1 (the deploy) serves; the restarts' startups 2 and 3 fail; start 4 serves.
    const { revision, manifest } = sshRevision({ outcomes: ['ready', 'failed', 'failed'] });
    expect((await prepareSettled(driver, revision, manifest)).state).toBe('ready');
    await driver.activateRevision(revision, { signal: AbortSignal.timeout(10_000) });
    process.kill(-pidOf(revision.agentId, revision.id), 'SIGKILL');
    const after = await waitFor(
      'a restart that serves',
      () => describeRuntime(revision),
      (d) => d.phase === 'ready',
      30_000,
    );
    expect(after).toMatchObject({ running: true, restarts: 3, lastFailureCode: 'PLUGIN_VERIFICATION_FAILED' });
    expect(startsOf(revision.agentId, revision.id)).toHaveLength(4);
    const failed = events.filter((e) => e.event === 'compute.ssh.startup_failed' && e.fields.revisionId === revision.id);
    expect(failed.map((e) => e.fields.code)).toEqual(['PLUGIN_VERIFICATION_FAILED', 'PLUGIN_VERIFICATION_FAILED']);
    // Served now: later checks leave it alone.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(startsOf(revision.agentId, revision.id)).toHaveLength(4);
    expect(await describeRuntime(revision)).toMatchObject({ phase: 'ready', restarts: 3 });
  }, 60_000);
});
