import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import type { ComputeDriver, PrepareResult } from '../../src/core/ports/compute-driver.ts';
import { containerName } from '../../src/drivers/compute/docker/container-spec.ts';
import { createDockerComputeDriver } from '../../src/drivers/compute/docker/index.ts';
import { dockerComputeSettings } from '../../src/drivers/compute/docker/settings.ts';
import { newId } from '../../src/core/ids.ts';
import { buildStandInRuntimeImage } from '../../../../test-support/docker/stand-in-runtime-image.ts';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { removeInstallationObjects } from '../../../../test-support/docker/remove-installation.ts';
import { probeStandInGateway, standInRevision, workerLook, type StandInScenario } from '../../../../test-support/stand-in-runtime.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

// The docker driver's redeploy on the real engine, driven directly (no controller, no worker):
// the containers run the stand-in runtime (the real image's Node, user and preload, and its
// hold for the go), so what is proven is the driver's order — who stops when — in seconds. The
// real runtime and OpenClaw prepared beside a serving container: docker-deploy.test.ts.
const docker = new Docker();
const installation = `t${randomBytes(4).toString('hex')}`;
let dir: string;
let image: string;

function driverWith(redeploy: 'prepare-beside' | 'recreate', log?: (event: string, fields: Record<string, unknown>) => void): ComputeDriver {
  const driver = createDockerComputeDriver({
    ...(log ? { log } : {}),
    settings: dockerComputeSettings({
      OCC_RUNTIME_IMAGE: image,
      OCC_DOCKER_INSTALLATION: installation,
      OCC_DOCKER_MEMORY: '256m',
      OCC_DOCKER_CPUS: '0.5',
      OCC_DOCKER_REDEPLOY: redeploy,
    }),
    probeGateway: probeStandInGateway,
    proceedRoot: join(dir, 'proceed'),
  });
  driver.start!(new StaticStartAuthority());
  return driver;
}

/** Looks as the worker does (prepare, and the go when it awaits one) until `done` holds (a failed prepare throws). */
async function prepareUntil(driver: ComputeDriver, { revision, manifest }: Made, done: (result: PrepareResult) => boolean): Promise<PrepareResult> {
  const until = Date.now() + 120_000;
  for (;;) {
    const result = await workerLook(driver, revision, manifest, AbortSignal.timeout(60_000));
    if (result.state === 'failed') throw new Error(`prepare failed: ${JSON.stringify(result)}`);
    if (done(result)) return result;
    if (Date.now() > until) throw new Error(`not done in time: ${JSON.stringify(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const ready = (result: PrepareResult) => result.state === 'ready';
type Made = { revision: AgentRevision; manifest: RuntimeManifest };
const nameOf = ({ revision }: Made) => containerName(installation, { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id });
const containerOf = (made: Made) => docker.getContainer(nameOf(made)).inspect();
const running = async (made: Made) => (await containerOf(made)).State.Running;
const holds = async (made: Made) => ((await containerOf(made)).Config.Env ?? []).includes('OCC_RUNTIME_HOLD_BEFORE_GATEWAY=1');
const goOf = (made: Made) => join(dir, 'proceed', nameOf(made), 'go');

/** Revision `n` of one Agent, playing `scenario`. */
function revisionOf(agent: { namespaceId: string; agentId: string }, n: number, scenario: StandInScenario = {}): Made {
  const made = standInRevision(scenario, { ...agent, revision: n });
  return { ...made, revision: { ...made.revision, computeDriverId: 'docker' } };
}

/** A fresh Agent whose revision 1 serves on `driver`, and its revision 2, playing `scenario`, not yet prepared. */
async function servingAndCandidate(driver: ComputeDriver, scenario: StandInScenario) {
  const agent = { namespaceId: newId('namespace'), agentId: newId('agent') };
  const one = revisionOf(agent, 1);
  await prepareUntil(driver, one, ready);
  return { agent, one, two: revisionOf(agent, 2, scenario) };
}

beforeAll(async () => {
  image = buildStandInRuntimeImage(await ensureTestRuntimeImage());
  dir = mkdtempSync(join(tmpdir(), 'occ-docker-redeploy-'));
}, 900_000);

afterAll(async () => {
  await removeInstallationObjects(docker, installation);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('the docker driver replaces a running revision', () => {
  const driver = () => driverWith('prepare-beside');

  it('[P-6] a candidate prepared beside the serving container that is given a go before it holds, then given up, stops alone: the serving container keeps running and serving', async () => {
    const d = driver();
    const { agent, one, two } = await servingAndCandidate(d, { preparingMs: 120_000 });
    expect((await d.prepareRevision(two.revision, two.manifest, { signal: AbortSignal.timeout(60_000) })).state).toBe('pending');
    expect(await holds(two)).toBe(true);
    expect(await running(two)).toBe(true);
    expect(await running(one)).toBe(true);
    // A go while it still installs (a look that raced its start) stops nothing: it does not hold yet.
    await d.proceedRevision!(agent, two.revision.id, { signal: AbortSignal.timeout(60_000) });
    expect(await running(one)).toBe(true);
    expect(existsSync(goOf(two))).toBe(false);

    // What the worker's give-up calls (abandonCandidate): without the beside rule it stopped the Agent's every container.
    await d.stopRevision(agent, two.revision.id, { signal: AbortSignal.timeout(60_000) });
    expect(await running(two)).toBe(false);
    expect(await running(one)).toBe(true);
    expect(await d.describeRuntime!(agent, one.revision.id)).toMatchObject({ running: true, ready: true });
  }, 300_000);

  it("[P-6] a prepared candidate awaits the worker's go: its prepare answers awaitsGo, stops nothing and records nothing; the go (proceedRevision) stops the serving container first and records it; a restart that lost the record holds until the worker's restore gives the go; retiring removes the record", async () => {
    const d = driver();
    const { agent, one, two } = await servingAndCandidate(d, { preparingMs: 200 });
    const signal = () => AbortSignal.timeout(60_000);
    for (const until = Date.now() + 60_000; ; ) {
      const look = await d.prepareRevision(two.revision, two.manifest, { signal: signal() });
      if (look.state === 'pending' && look.awaitsGo) break;
      if (look.state !== 'pending' || Date.now() > until) throw new Error(`the candidate never awaited its go: ${JSON.stringify(look)}`);
    }
    expect(await d.describeRuntime!(agent, two.revision.id)).toMatchObject({ phase: 'prepared' });
    expect(await running(one)).toBe(true);
    expect(existsSync(goOf(two))).toBe(false);

    await d.proceedRevision!(agent, two.revision.id, { signal: signal() });
    expect(await running(one)).toBe(false);
    expect(existsSync(goOf(two))).toBe(true);
    await prepareUntil(d, two, ready);

    // Its record lost and the container restarted, it holds again; the worker's restore of the
    // pointer's revision (recovery at OCC's start) finds it holding and gives the go.
    rmSync(goOf(two));
    await docker.getContainer(nameOf(two)).restart({ t: 5 });
    const phase = async () => (await d.describeRuntime!(agent, two.revision.id)).phase;
    for (const until = Date.now() + 60_000; (await phase()) !== 'prepared'; ) {
      if (Date.now() > until) throw new Error('the restarted container never held');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await d.restoreRevision(two.revision, two.manifest, { kind: 'recovery' }, { signal: AbortSignal.timeout(60_000) });
    for (const until = Date.now() + 60_000; !(await d.describeRuntime!(agent, two.revision.id)).ready; ) {
      if (Date.now() > until) throw new Error('the restored container never went on');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(existsSync(goOf(two))).toBe(true);
    await d.retireRevision(agent, two.revision.id, { signal: AbortSignal.timeout(60_000) });
    expect(existsSync(join(goOf(two), '..'))).toBe(false);
  }, 300_000);

  it('[P-5][P-6] with OCC_DOCKER_REDEPLOY=recreate the serving container stops before the candidate starts, and the candidate does not hold', async () => {
    const d = driverWith('recreate');
    const { one, two } = await servingAndCandidate(d, { preparingMs: 120_000 });
    expect((await d.prepareRevision(two.revision, two.manifest, { signal: AbortSignal.timeout(60_000) })).state).toBe('pending');
    expect(await running(one)).toBe(false);
    expect(await holds(two)).toBe(false);
    expect(existsSync(join(goOf(two), '..'))).toBe(false);
  }, 300_000);
});

describe("the docker driver runs the pointer's revision when the worker asks (restoreRevision)", () => {
  it("[K-7][S-2] a serving revision is left as it is (same container, same start, nothing logged); one removed from the engine is made again from the revision's manifest and serves", async () => {
    const events: string[] = [];
    const d = driverWith('prepare-beside', (event) => events.push(event));
    const agent = { namespaceId: newId('namespace'), agentId: newId('agent') };
    const one = revisionOf(agent, 1);
    await prepareUntil(d, one, ready);
    const signal = () => AbortSignal.timeout(60_000);
    const serving = await containerOf(one);

    // The worker's periodic check of a running Agent: nothing to do.
    await d.restoreRevision(one.revision, one.manifest, { kind: 'check' }, { signal: signal() });
    const checked = await containerOf(one);
    expect([checked.Id, checked.State.StartedAt, checked.RestartCount]).toEqual([serving.Id, serving.State.StartedAt, serving.RestartCount]);
    expect(events).not.toContain('compute.docker.recovered');

    // Removed behind OCC's back (`docker rm -f`): the engine will not bring it back, the check does.
    await docker.getContainer(serving.Id).remove({ force: true, v: true });
    await d.restoreRevision(one.revision, one.manifest, { kind: 'check' }, { signal: signal() });
    const made = await containerOf(one);
    expect(made.Id).not.toBe(serving.Id);
    expect(made.State.Running).toBe(true);
    expect(events).toContain('compute.docker.recovered');
    for (const until = Date.now() + 60_000; !(await d.describeRuntime!(agent, one.revision.id)).ready; ) {
      if (Date.now() > until) throw new Error('the container made again never served');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 300_000);
});
