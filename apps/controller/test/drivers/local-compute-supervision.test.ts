import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalComputeDriver, type LocalComputeDriver, type LocalComputeOptions } from '../../src/drivers/compute/local/index.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { prepareSettled, probeStandInGateway, processAlive, standInLaunch, standInRevision, tempRoot, STAND_IN_CONFINEMENT } from '../../../../test-support/stand-in-runtime.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { restoreAsTheWorker } from '../../../../test-support/restore-as-worker.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

/** Supervision: crashed runtimes come back with backoff, a restarted OCC brings active ones back. */
const open: LocalComputeDriver[] = [];
const roots: string[] = [];

function driverAt(root: string, overrides: Partial<LocalComputeOptions> = {}): LocalComputeDriver {
  const driver = createLocalComputeDriver({
    confinement: STAND_IN_CONFINEMENT,
    rootDir: root,
    launch: standInLaunch,
    probeGateway: probeStandInGateway,
    stopGraceMs: 500,
    readyWaitMs: 300,
    backoff: { baseMs: 100, capMs: 1_000, resetAfterMs: 5_000 },
    ...overrides,
  });
  open.push(driver);
  return driver;
}

function newRoot(): string {
  const root = tempRoot();
  roots.push(root);
  return root;
}

afterAll(async () => {
  await Promise.all(open.map((d) => d.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const signal = () => AbortSignal.timeout(10_000);
const alive = processAlive;
const read = (path: string) => readFileSync(path, 'utf8');
const pidIn = (path: string) => Number(read(path).trim());

/** What every start of these tests is allowed. */
const authority = new StaticStartAuthority();

async function activeRuntime(driver: LocalComputeDriver, root: string, scenario = {}) {
  const { revision, manifest } = standInRevision(scenario);
  expect((await prepareSettled(driver, revision, manifest)).state).toBe('ready');
  await driver.activateRevision(revision, { signal: signal() });
  const paths = revisionPaths(root, revision.agentId, revision.id);
  return { revision, manifest, paths };
}

describe('local ComputeDriver: supervision', () => {
  it('[S-2] kill -9 of the active runtime: it is restarted with backoff under a fresh startup id and its status is recomputed', async () => {
    const root = newRoot();
    const driver = driverAt(root);
    driver.start(authority);
    const { revision, manifest, paths } = await activeRuntime(driver, root);
    const before = await driver.describeRuntime(revision, revision.id);
    process.kill(pidIn(paths.pidFile), 'SIGKILL');
    const after = await waitFor(
      'the restarted runtime to be ready',
      () => driver.describeRuntime(revision, revision.id),
      (d) => d.phase === 'ready' && d.startupId !== before.startupId,
      10_000,
    );
    expect(after).toMatchObject({ running: true, restarts: 1 });
    expect((await prepareSettled(driver, revision, manifest)).state).toBe('ready');
    expect(read(paths.logFile)).toMatch(/runtime exited unexpectedly \(signal SIGKILL\)[\s\S]*restarting in 100 ms/);
  });

  it('[S-2] kill -9 of the gateway: the runtime exits, comes back, and the gateway serves again', async () => {
    const root = newRoot();
    const driver = driverAt(root);
    driver.start(authority);
    const { revision, manifest, paths } = await activeRuntime(driver, root);
    const gatewayPidFile = join(paths.dir, 'gateway.pid');
    const gateway = pidIn(gatewayPidFile);
    process.kill(gateway, 'SIGKILL');
    await waitFor(
      'a new gateway',
      async () => pidIn(gatewayPidFile),
      (pid) => pid !== gateway,
      10_000,
    );
    expect((await prepareSettled(driver, revision, manifest)).state).toBe('ready');
    expect(await driver.describeRuntime(revision, revision.id)).toMatchObject({ running: true, phase: 'ready', restarts: 1 });
    expect(read(paths.logFile)).toContain('stand-in gateway exited (SIGKILL)');
  });

  it('[S-2] a supervised restart whose startup fails is retried with backoff, not left unready, until a start succeeds', async () => {
    const root = newRoot();
    const driver = driverAt(root);
    driver.start(authority);
    // Start 1 (the deploy) is ready; the restarts' startups 2 and 3 fail; start 4 succeeds.
    const { revision, manifest, paths } = await activeRuntime(driver, root, { outcomes: ['ready', 'failed', 'failed'] });
    process.kill(pidIn(paths.pidFile), 'SIGKILL');
    const after = await waitFor(
      'a restart that succeeds',
      () => driver.describeRuntime(revision, revision.id),
      (d) => d.phase === 'ready',
      15_000,
    );
    expect(after).toMatchObject({ running: true, restarts: 3 });
    expect(read(join(paths.dir, 'stand-in-starts')).trim().split('\n')).toHaveLength(4);
    const log = read(paths.logFile);
    expect(log.match(/runtime startup failed \(PLUGIN_VERIFICATION_FAILED\)/g)).toHaveLength(2);
    expect([...log.matchAll(/restarting in (\d+) ms \(restart (\d+)\)/g)].map((m) => [Number(m[1]), Number(m[2])])).toEqual([
      [100, 1],
      [200, 2],
      [400, 3],
    ]);
    expect((await prepareSettled(driver, revision, manifest)).state).toBe('ready');
  });

  it('[S-2] an active revision whose startup fails after an OCC restart keeps being retried', async () => {
    const root = newRoot();
    const first = driverAt(root);
    first.start(authority);
    // Start 1 serves; start 2 (after the restart) fails; start 3 serves.
    const { revision, manifest, paths } = await activeRuntime(first, root, { outcomes: ['ready', 'failed'] });
    await first.close();
    const second = driverAt(root);
    second.start(authority);
    await restoreAsTheWorker(second, [{ revision, manifest }]);
    const after = await waitFor(
      'the retried start to serve',
      () => second.describeRuntime(revision, revision.id),
      (d) => d.phase === 'ready',
      15_000,
    );
    expect(after).toMatchObject({ running: true, restarts: 1 });
    expect(read(join(paths.dir, 'stand-in-starts')).trim().split('\n')).toHaveLength(3);
  });

  it('restarts back off exponentially up to the cap while the runtime keeps crashing', async () => {
    const root = newRoot();
    const driver = driverAt(root, { backoff: { baseMs: 50, capMs: 400, resetAfterMs: 10_000 } });
    driver.start(authority);
    const { revision, paths } = await activeRuntime(driver, root, { exitAfterMs: 2_000 });
    await waitFor(
      'five restarts',
      () => driver.describeRuntime(revision, revision.id),
      (d) => d.restarts >= 5,
      30_000,
    );
    const delays = [...read(paths.logFile).matchAll(/restarting in (\d+) ms/g)].map((m) => Number(m[1]));
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 400, 400]);
    await driver.stopRevision(revision, revision.id, { signal: signal() });
    const restarts = (await driver.describeRuntime(revision, revision.id)).restarts;
    expect(restarts).toBe(0);
  });

  it('[S-2] restart recovery: close() stops every runtime; a new driver on the same root brings back what the worker restores (the database names)', async () => {
    const root = newRoot();
    const first = driverAt(root);
    first.start(authority);
    const a = await activeRuntime(first, root);
    const b = await activeRuntime(first, root);
    const pids = [pidIn(a.paths.pidFile), pidIn(b.paths.pidFile)];
    await first.close();
    expect(pids.map(alive)).toEqual([false, false]);

    const second = driverAt(root);
    second.start(authority);
    await restoreAsTheWorker(second, [a, b]);
    for (const { revision, manifest, paths } of [a, b]) {
      await waitFor(
        'the runtime to come back',
        async () => pidIn(paths.pidFile),
        (pid) => !pids.includes(pid) && alive(pid),
        10_000,
      );
      expect((await prepareSettled(second, revision, manifest)).state).toBe('ready');
      expect(read(join(paths.dir, 'stand-in-starts')).trim().split('\n')).toHaveLength(2);
    }
  });

  it('[S-2] after OCC is killed (kill -9), the next start stops the runtimes it left behind and starts the active ones again', async () => {
    const root = newRoot();
    const { revision, manifest } = standInRevision({});
    const manifestFile = join(root, 'host-manifest.json');
    writeFileSync(manifestFile, JSON.stringify({ revision, manifest }));
    const host = join(root, 'host.mts');
    const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
    writeFileSync(
      host,
      `
      import { readFileSync } from 'node:fs';
      import { createLocalComputeDriver } from ${JSON.stringify(here('../../src/drivers/compute/local/index.ts'))};
      import { prepareSettled, probeStandInGateway, processAlive, standInLaunch } from ${JSON.stringify(here('../../../../test-support/stand-in-runtime.ts'))};
      import { StaticStartAuthority } from ${JSON.stringify(here('../../../../test-support/static-start-authority.ts'))};
      const { revision, manifest } = JSON.parse(readFileSync(${JSON.stringify(manifestFile)}, 'utf8'));
      const driver = createLocalComputeDriver({ confinement: 'none', rootDir: ${JSON.stringify(root)}, launch: standInLaunch, probeGateway: probeStandInGateway, readyWaitMs: 300 });
      driver.start(new StaticStartAuthority());
      await prepareSettled(driver, revision, manifest);
      await driver.activateRevision(revision, { signal: AbortSignal.timeout(10_000) });
      console.log('active');
      setInterval(() => {}, 1000);
    `,
    );
    const occ = spawn(process.execPath, ['--import', 'tsx', host], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      occ.stdout.on('data', (chunk) => String(chunk).includes('active') && resolve());
      occ.once('exit', (code) => reject(new Error(`host exited ${code}`)));
    });
    const paths = revisionPaths(root, revision.agentId, revision.id);
    const orphan = pidIn(paths.pidFile);
    const orphanGateway = pidIn(join(paths.dir, 'gateway.pid'));
    occ.kill('SIGKILL');
    await new Promise((resolve) => occ.once('exit', resolve));
    expect([alive(orphan), alive(orphanGateway)]).toEqual([true, true]);

    const next = driverAt(root);
    next.start(authority);
    // Restoring waits until the strays are gone (the driver's gate), then starts the pointer's revision.
    await restoreAsTheWorker(next, [{ revision, manifest }]);
    await waitFor(
      'a new runtime',
      async () => pidIn(paths.pidFile),
      (pid) => pid !== orphan,
      10_000,
    );
    expect([alive(orphan), alive(orphanGateway)]).toEqual([false, false]);
    expect((await prepareSettled(next, revision, manifest)).state).toBe('ready');
  });

  it('one supervisor per root: a second driver on the same root refuses to start while the first runs', async () => {
    const root = newRoot();
    const first = driverAt(root);
    first.start(authority);
    expect(() => driverAt(root).start(authority)).toThrow(/already running in this process/);
    await first.close();
    const again = driverAt(root);
    expect(() => again.start(authority)).not.toThrow();
    writeFileSync(join(root, 'supervisor.pid'), '1\n');
    await again.close();
    writeFileSync(join(root, 'supervisor.pid'), '1\n');
    expect(() => driverAt(root).start(authority)).toThrow(/Another process \(pid 1\)/);
  });
});
