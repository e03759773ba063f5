import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalComputeDriver, type LocalComputeDriver, type LocalComputeOptions } from '../../src/drivers/compute/local/index.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { localConfinementSetting, localSharedLoopbackPorts, loopbackPortOf, sandboxUid } from '../../src/drivers/compute/local/sandbox/confinement.ts';
import { prepareSettled, probeStandInGateway, standInLaunch, standInRevision, tempRoot } from '../../../../test-support/stand-in-runtime.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

// Where the local driver cannot confine a runtime it starts none; the development opt-out says
// so loudly. (What a confined runtime can reach is attacked in test/e2e/agent-breakout.test.ts.)
const drivers: LocalComputeDriver[] = [];
const roots: string[] = [];

function newDriver(overrides: Partial<LocalComputeOptions>): { driver: LocalComputeDriver; root: string; events: Array<[string, Record<string, unknown>]> } {
  const root = tempRoot();
  roots.push(root);
  const events: Array<[string, Record<string, unknown>]> = [];
  const driver = createLocalComputeDriver({
    rootDir: root,
    launch: standInLaunch,
    probeGateway: probeStandInGateway,
    stopGraceMs: 500,
    readyWaitMs: 300,
    log: (event, fields) => events.push([event, fields]),
    ...overrides,
  });
  driver.start(new StaticStartAuthority());
  drivers.push(driver);
  return { driver, root, events };
}

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('local runtimes are confined or not started', () => {
  it('a host that cannot confine starts no runtime: the prepare fails with RUNTIME_CONFINEMENT_UNAVAILABLE, OCC’s log says why', async () => {
    const { driver, root, events } = newDriver({ probeSandbox: () => 'unshare: unshare failed: Operation not permitted' });
    const { revision, manifest } = standInRevision({});
    const result = await prepareSettled(driver, revision, manifest);
    expect(result).toMatchObject({ state: 'failed', failure: { code: 'RUNTIME_CONFINEMENT_UNAVAILABLE' } });
    expect(events).toContainEqual(['compute.local.confinement_unavailable', { agentId: revision.agentId, reason: 'unshare: unshare failed: Operation not permitted' }]);
    const log = readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8');
    expect(log).toContain('runtime start refused (RUNTIME_CONFINEMENT_UNAVAILABLE)');
    expect(log).not.toContain('runtime started');
  });

  it('the opt-out (none) starts the runtime unconfined and warns in OCC’s log and the runtime log at every start', async () => {
    const { driver, root, events } = newDriver({ confinement: 'none', probeSandbox: () => 'never asked' });
    const { revision, manifest } = standInRevision({});
    expect(await prepareSettled(driver, revision, manifest)).toMatchObject({ state: 'ready' });
    expect(events.filter(([event]) => event === 'compute.local.unconfined')).toEqual([
      ['compute.local.unconfined', expect.objectContaining({ agentId: revision.agentId, warning: expect.stringContaining("can read OCC's keys and database") })],
    ]);
    expect(readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8')).toContain('WARNING: not confined (OCC_LOCAL_CONFINEMENT=none)');
  });

  it('settings: sandbox by default, none on request, anything else refused naming the variable; shared ports validated', () => {
    expect(localConfinementSetting({})).toBe('sandbox');
    expect(localConfinementSetting({ OCC_LOCAL_CONFINEMENT: 'none' })).toBe('none');
    expect(() => localConfinementSetting({ OCC_LOCAL_CONFINEMENT: 'off' })).toThrow(/OCC_LOCAL_CONFINEMENT must be sandbox/);
    expect(localSharedLoopbackPorts({ OCC_LOCAL_SHARED_LOOPBACK_PORTS: '11434, 8000,11434' })).toEqual([11434, 8000]);
    expect(() => localSharedLoopbackPorts({ OCC_LOCAL_SHARED_LOOPBACK_PORTS: '80,http' })).toThrow(/OCC_LOCAL_SHARED_LOOPBACK_PORTS must list port numbers/);
    expect(loopbackPortOf('http://127.0.0.1:4873/')).toEqual([4873]);
    expect(loopbackPortOf('https://registry.npmjs.org/')).toEqual([]);
  });

  it('each Agent gets its own stable uid far from login users', () => {
    const one = sandboxUid('agt_00000000-0000-4000-8000-000000000001');
    expect(one).toBe(sandboxUid('agt_00000000-0000-4000-8000-000000000001'));
    expect(one).not.toBe(sandboxUid('agt_00000000-0000-4000-8000-000000000002'));
    expect(one).toBeGreaterThanOrEqual(3_000_000);
    expect(one).toBeLessThan(4_000_000);
  });
});
