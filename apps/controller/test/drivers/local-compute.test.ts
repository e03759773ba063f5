import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ComputeValidationError } from '../../src/core/ports/compute-driver.ts';
import { createLocalComputeDriver, type LocalComputeDriver, type LocalComputeOptions } from '../../src/drivers/compute/local/index.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { localRedeploySetting } from '../../src/drivers/compute/local/redeploy-mode.ts';
import { deriveToken, loadDriverKey } from '../../src/drivers/compute/runtime-contract/driver-key.ts';
import {
  prepareSettled,
  workerLook,
  probeStandInGateway,
  processAlive,
  standInLaunch,
  standInRevision,
  tempRoot,
  type StandInScenario,
  STAND_IN_CONFINEMENT,
} from '../../../../test-support/stand-in-runtime.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

/**
 * The local ComputeDriver's mechanics against a stand-in of our runtime (test-support): staging,
 * the status it trusts, Recreate and files. The real runtime and OpenClaw come in the e2e tests.
 */
const drivers: LocalComputeDriver[] = [];
const roots: string[] = [];

function newDriver(overrides: Partial<LocalComputeOptions> = {}, authority = new StaticStartAuthority()): { driver: LocalComputeDriver; root: string } {
  const root = tempRoot();
  roots.push(root);
  const driver = createLocalComputeDriver({
    confinement: STAND_IN_CONFINEMENT,
    rootDir: root,
    launch: standInLaunch,
    probeGateway: probeStandInGateway,
    env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://canary-database-url', OCC_SECRET_KEY: 'canary-secret-key' },
    stopGraceMs: 500,
    readyWaitMs: 300,
    backoff: { baseMs: 100, capMs: 1_000, resetAfterMs: 5_000 },
    ...overrides,
  });
  driver.start(authority);
  drivers.push(driver);
  return { driver, root };
}

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const signal = () => AbortSignal.timeout(10_000);
const mode = (path: string) => statSync(path).mode & 0o777;
const alive = processAlive;
const pidOf = (root: string, agentId: string, revisionId: string) => Number(readFileSync(revisionPaths(root, agentId, revisionId).pidFile, 'utf8'));
const startsOf = (root: string, agentId: string, revisionId: string) =>
  readFileSync(join(revisionPaths(root, agentId, revisionId).dir, 'stand-in-starts'), 'utf8')
    .trim()
    .split('\n');

const logOf = (root: string, revision: { agentId: string; id: string }) => readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8');

/** A revision prepared and activated: the Agent's active one. */
async function activeRevision(driver: LocalComputeDriver) {
  const one = standInRevision({});
  expect((await prepareSettled(driver, one.revision, one.manifest)).state).toBe('ready');
  await driver.activateRevision(one.revision, { signal: signal() });
  return one;
}

/** The pid of the revision's stand-in gateway (its gateway.pid), or null before one started. */
function gatewayPidOf(root: string, agentId: string, revisionId: string): number | null {
  const file = join(revisionPaths(root, agentId, revisionId).dir, 'gateway.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8')) : null;
}

/** An active revision with its runtime's and gateway's pids, and a file of the Agent's own in its state (and when it was written). */
async function servingWithMarkedState(driver: LocalComputeDriver, root: string) {
  const one = await activeRevision(driver);
  const oldPid = pidOf(root, one.revision.agentId, one.revision.id);
  const gatewayPid = gatewayPidOf(root, one.revision.agentId, one.revision.id)!;
  const stateFile = join(root, 'agents', one.revision.agentId, 'state', 'openclaw.db');
  writeFileSync(stateFile, 'agent-owned');
  return { one, oldPid, gatewayPid, stateFile, stateBefore: statSync(stateFile).mtimeMs };
}

/** Whether the revision's newest gateway answers /readyz to its token (the port from its newest ready line). */
async function gatewayAnswers(root: string, revision: { agentId: string; id: string }): Promise<boolean> {
  const ports = [...logOf(root, revision).matchAll(/stand-in ready gatewayPort=(\d+)/g)].map((m) => Number(m[1]));
  const token = deriveToken(loadDriverKey(root), 'gateway', revision.id);
  return probeStandInGateway(ports.at(-1)!, token, AbortSignal.timeout(2_000));
}

async function untrusted(scenario: StandInScenario) {
  const { driver, root } = newDriver();
  const { revision, manifest } = standInRevision(scenario);
  const log = () => readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8');
  const answers = [await driver.prepareRevision(revision, manifest, { signal: signal() })];
  // Whatever the stand-in publishes once it has published it: still never ready.
  await waitFor(
    'the stand-in to publish',
    async () => log(),
    (text) => text.includes('stand-in ready'),
    10_000,
  );
  for (let i = 0; i < 3; i++) answers.push(await driver.prepareRevision(revision, manifest, { signal: signal() }));
  await driver.stopRevision(revision, revision.id, { signal: signal() });
  return answers;
}

describe('local ComputeDriver: preparing a revision', () => {
  it('[P-1] accepts the codex harness with the codex-hosted PluginDriver (or none), like openclaw with openclaw-curated', () => {
    const { driver } = newDriver();
    for (const options of [
      { harness: 'codex' as const },
      { harness: 'codex' as const, pluginDriverId: null, codexPat: true },
      { harness: 'openclaw' as const },
      { harness: 'openclaw' as const, pluginDriverId: null },
    ]) {
      expect(() => driver.validateRevision(standInRevision({}, options).revision), JSON.stringify(options)).not.toThrow();
    }
  });

  it('[P-1] refuses a harness with a foreign PluginDriver before any host effect (PLUGIN_DRIVER_UNSUPPORTED)', async () => {
    const { driver, root } = newDriver();
    for (const [harness, pluginDriverId] of [
      ['codex', 'openclaw-curated'],
      ['openclaw', 'codex-hosted'],
      ['codex', 'some-other-driver'],
    ] as const) {
      const { revision, manifest } = standInRevision({}, { harness, pluginDriverId });
      expect(() => driver.validateRevision(revision)).toThrow(ComputeValidationError);
      try {
        driver.validateRevision(revision);
      } catch (error) {
        expect((error as ComputeValidationError).code).toBe('PLUGIN_DRIVER_UNSUPPORTED');
        expect((error as Error).message).toContain(harness);
      }
      await expect(driver.prepareRevision(revision, manifest, { signal: signal() })).rejects.toThrow(ComputeValidationError);
    }
    expect(readdirSync(root).filter((f) => f === 'agents')).toEqual([]);
  });

  it('[P-7][S-1][W-1] stages a private revision, starts its runtime and is ready with the admitted warnings once status and gateway agree', async () => {
    const { driver, root } = newDriver();
    const failures = [{ pluginId: 'nostr', code: 'PLUGIN_INSTALL_FAILED' as const }];
    // Preparing outlasts one prepare call's watch (300 ms), however fast the machine starts processes.
    const { revision, manifest } = standInRevision({ failures, preparingMs: 1_500 });
    const first = await driver.prepareRevision(revision, manifest, { signal: signal() });
    expect(first.state).toBe('pending');
    const result = await prepareSettled(driver, revision, manifest);
    expect(result).toEqual({ state: 'ready', warnings: failures });

    const paths = revisionPaths(root, revision.agentId, revision.id);
    const agentDir = join(root, 'agents', revision.agentId);
    expect(mode(root)).toBe(0o700);
    for (const dir of [agentDir, join(agentDir, 'state'), join(agentDir, 'home'), join(agentDir, 'revisions'), paths.dir, paths.logs]) expect(mode(dir), dir).toBe(0o700);
    for (const file of [paths.manifest, paths.endpoint, paths.logFile, join(root, 'driver-key')]) expect(mode(file), file).toBe(0o600);
    expect(JSON.parse(readFileSync(paths.manifest, 'utf8'))).toEqual(manifest);
    const description = await driver.describeRuntime(revision, revision.id);
    expect(description).toMatchObject({ running: true, phase: 'ready', restarts: 0 });
    expect(description.startupId).toBe(startsOf(root, revision.agentId, revision.id)[0]);
    await driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it("[P-7] gives the runtime a minimal environment built from nothing: never the controller's DATABASE_URL or secret key, tokens never logged", async () => {
    const { driver, root } = newDriver({ catalog: '/catalog.json', npmRegistry: 'http://127.0.0.1:4873/' });
    const { revision, manifest } = standInRevision({});
    await prepareSettled(driver, revision, manifest);
    const log = readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8');
    const envLine = log.split('\n').find((l) => l.includes('stand-in start'))!;
    expect(envLine.split('env=')[1]!.split(',')).toEqual([
      'HOME',
      'LANG',
      'OCC_RUNTIME_CATALOG',
      'OCC_RUNTIME_GATEWAY_TOKEN',
      'OCC_RUNTIME_MANIFEST',
      'OCC_RUNTIME_NPM_CONTENT',
      'OCC_RUNTIME_NPM_REGISTRY',
      'OCC_RUNTIME_REVISION_DIR',
      'OCC_RUNTIME_STATE_DIR',
      'OCC_RUNTIME_STATUS_TOKEN',
      'OCC_RUNTIME_TRANSPORT_SECRET',
      'PATH',
      'TMPDIR',
    ]);
    expect(log).not.toContain('canary');
    const environ = readFileSync(`/proc/${pidOf(root, revision.agentId, revision.id)}/environ`, 'utf8').split('\u0000');
    const token = environ.find((e) => e.startsWith('OCC_RUNTIME_STATUS_TOKEN='))!.split('=')[1]!;
    expect(environ).toContain(`HOME=${join(root, 'agents', revision.agentId, 'home')}`);
    // The installation's npm content store, which the sandbox shows read-only.
    expect(environ).toContain(`OCC_RUNTIME_NPM_CONTENT=${join(root, 'npm-content')}`);
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(log).not.toContain(token);
    // Every revision (OpenClaw ones too) gets its transport secret, derived like its tokens; never logged.
    const transport = deriveToken(loadDriverKey(root), 'app-server-transport', revision.id);
    expect(environ).toContain(`OCC_RUNTIME_TRANSPORT_SECRET=${transport}`);
    expect(new Set([token, transport, deriveToken(loadDriverKey(root), 'gateway', revision.id)]).size).toBe(3);
    expect(log).not.toContain(transport);
    await driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('[S-2][W-1] never trusts a status for another revision, another startup, a non-admitted plugin, a missing enabled selection, an open code or a malformed body', async () => {
    const other = standInRevision({}).revision.id;
    const cases: StandInScenario[] = [
      { statusRevisionId: other },
      { statusStartupId: 'aaaaaaaaaaaaaaaaaaaaaa' },
      { failures: [{ pluginId: 'not-selected', code: 'PLUGIN_INSTALL_FAILED' }] },
      { plugins: ['diffs', 'not-selected'] },
      // Silent about the enabled selection nostr: neither installed nor failed.
      { plugins: ['diffs'] },
      { failures: [{ pluginId: 'nostr', code: 'PLUGIN_EXPLODED' as 'PLUGIN_INSTALL_FAILED' }] },
      { rawStatus: '{"phase":"ready"' },
    ];
    const all = await Promise.all(cases.map((scenario) => untrusted(scenario)));
    for (const [i, answers] of all.entries()) {
      expect(
        answers.every((a) => a.state === 'pending'),
        JSON.stringify(cases[i]),
      ).toBe(true);
      expect(answers.at(-1), JSON.stringify(cases[i])).toEqual({ state: 'pending', reason: 'RUNTIME_STATUS_UNTRUSTED' });
    }
  });

  it('[S-2] a status announced by another process (endpoint pid) or a gateway that never serves never establishes readiness', async () => {
    const [stale, gateway] = await Promise.all([untrusted({ endpointPid: 'wrong' }), untrusted({ gateway: 'never' })]);
    expect(stale).toEqual(Array(4).fill({ state: 'pending', reason: 'RUNTIME_STARTING' }));
    expect(gateway.every((a) => a.state === 'pending')).toBe(true);
    expect(gateway.at(-1)).toEqual({ state: 'pending', reason: 'GATEWAY_STARTING' });
  });

  it('[S-2] a disabled selection is not waited for: the revision is ready with the enabled ones installed', async () => {
    const { driver } = newDriver();
    const { revision, manifest } = standInRevision({}, { plugins: { diffs: { enabled: true }, nostr: { enabled: false } } });
    expect(await prepareSettled(driver, revision, manifest)).toEqual({ state: 'ready', warnings: [] });
    await driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it("[N-8][W-2] a failed startup is a runtime failure with the runtime's code; that runtime is stopped and the next prepare starts afresh", async () => {
    const { driver, root } = newDriver();
    const { revision, manifest } = standInRevision({ outcome: 'failed', errorCode: 'PLUGIN_VERIFICATION_FAILED' });
    const result = await prepareSettled(driver, revision, manifest);
    expect(result).toEqual({ state: 'failed', failure: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'The runtime failed to start.' } });
    expect(alive(pidOf(root, revision.agentId, revision.id))).toBe(false);
    expect(await driver.describeRuntime(revision, revision.id)).toMatchObject({ running: false });
    await prepareSettled(driver, revision, manifest);
    expect(startsOf(root, revision.agentId, revision.id)).toHaveLength(2);
  });

  it("[N-8] a failed startup that names one of the revision's selections hands that detail to the worker; one naming another key does not", async () => {
    const { driver } = newDriver();
    const detail = { plugin: 'diffs', violation: { code: 'UNSUPPORTED_VALUE', at: '' } };
    const named = standInRevision({ outcome: 'failed', errorCode: 'PLUGIN_POLICY_INVALID', errorDetail: detail });
    expect(await prepareSettled(driver, named.revision, named.manifest)).toEqual({
      state: 'failed',
      failure: { code: 'PLUGIN_POLICY_INVALID', message: 'The runtime failed to start.', detail },
    });
    const other = standInRevision({ outcome: 'failed', errorCode: 'PLUGIN_POLICY_INVALID', errorDetail: { ...detail, plugin: 'not-selected' } });
    expect(await prepareSettled(driver, other.revision, other.manifest)).toEqual({
      state: 'failed',
      failure: { code: 'PLUGIN_POLICY_INVALID', message: 'The runtime failed to start.' },
    });
  });

  it('a candidate that exits before activation is a runtime failure (RUNTIME_EXITED), not a silent restart', async () => {
    const { driver, root } = newDriver();
    const { revision, manifest } = standInRevision({ preparingMs: 5_000, exitAfterMs: 100, exitOnce: true });
    const result = await prepareSettled(driver, revision, manifest);
    expect(result).toEqual({ state: 'failed', failure: { code: 'RUNTIME_EXITED', message: 'The runtime failed to start.' } });
    expect(startsOf(root, revision.agentId, revision.id)).toHaveLength(1);
    await driver.prepareRevision(revision, manifest, { signal: signal() });
    await waitFor(
      'a fresh start',
      async () => startsOf(root, revision.agentId, revision.id),
      (s) => s.length === 2,
      5_000,
    );
    await driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('is idempotent: preparing and activating again neither restarts the runtime nor rewrites an unchanged manifest', async () => {
    const { driver, root } = newDriver();
    const { revision, manifest } = standInRevision({});
    await prepareSettled(driver, revision, manifest);
    const manifestPath = revisionPaths(root, revision.agentId, revision.id).manifest;
    const written = statSync(manifestPath).mtimeMs;
    for (let i = 0; i < 3; i++) expect((await driver.prepareRevision(revision, manifest, { signal: signal() })).state).toBe('ready');
    await driver.activateRevision(revision, { signal: signal() });
    await driver.activateRevision(revision, { signal: signal() });
    expect(startsOf(root, revision.agentId, revision.id)).toHaveLength(1);
    expect(statSync(manifestPath).mtimeMs).toBe(written);
    await driver.stopRevision(revision, revision.id, { signal: signal() });
    await driver.stopRevision(revision, revision.id, { signal: signal() });
    await driver.retireRevision(revision, revision.id, { signal: signal() });
  });

  it('honours an aborted signal: nothing is staged or started', async () => {
    const { driver, root } = newDriver();
    const { revision, manifest } = standInRevision({});
    await expect(driver.prepareRevision(revision, manifest, { signal: AbortSignal.abort() })).rejects.toThrow();
    await expect(driver.activateRevision(revision, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(readdirSync(root)).not.toContain('agents');
  });
});

describe('local ComputeDriver: Recreate and files', () => {
  it("[K-1][K-4] a deploy's last look starts nothing: a candidate without a runtime (one an OCC restart ended) is reported not ready, and the active runtime keeps serving", async () => {
    const { driver, root } = newDriver();
    const { one, oldPid, gatewayPid } = await servingWithMarkedState(driver, root);
    const two = standInRevision({}, { agentId: one.revision.agentId, revision: 2 });
    expect(await driver.prepareRevision(two.revision, two.manifest, { signal: signal(), lastLook: true })).toEqual({ state: 'pending', reason: 'RUNTIME_STARTING' });
    // No Recreate for it: the active runtime and its gateway still run, and no runtime of revision 2 was started.
    expect(alive(oldPid)).toBe(true);
    expect(alive(gatewayPid)).toBe(true);
    expect(existsSync(join(revisionPaths(root, two.revision.agentId, two.revision.id).dir, 'stand-in-starts'))).toBe(false);
    expect(await driver.describeRuntime(two.revision, two.revision.id)).toMatchObject({ running: false });
    expect(await driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: true, ready: true });
  });

  it('[P-6][K-3][P-5][K-7] a new revision stops the old gateway before it installs, leaves the Agent state alone, and retire keeps the old files', async () => {
    const { driver, root } = newDriver();
    const { one, oldPid, gatewayPid, stateFile, stateBefore } = await servingWithMarkedState(driver, root);

    // Preparing for 3 s: the first call's short watch (300 ms) ends before it is ready even when one
    // look is slow under load (a look may take up to the probe timeout).
    const two = standInRevision({ preparingMs: 3_000 }, { agentId: one.revision.agentId, revision: 2 });
    const first = await driver.prepareRevision(two.revision, two.manifest, { signal: signal() });
    expect(first.state).toBe('pending');
    // Recreate: the old runtime and its gateway are gone before the new one started.
    expect(alive(oldPid)).toBe(false);
    expect(alive(gatewayPid)).toBe(false);
    const log = (rev: string) => readFileSync(revisionPaths(root, one.revision.agentId, rev).logFile, 'utf8');
    const stoppedAt = log(one.revision.id)
      .split('\n')
      .find((l) => l.includes('runtime stopped'))!
      .slice(0, 24);
    const startedAt = log(two.revision.id)
      .split('\n')
      .find((l) => l.includes('runtime started'))!
      .slice(0, 24);
    expect(stoppedAt <= startedAt).toBe(true);

    expect((await prepareSettled(driver, two.revision, two.manifest)).state).toBe('ready');
    await driver.activateRevision(two.revision, { signal: signal() });
    await driver.retireRevision(one.revision, one.revision.id, { signal: signal() });
    // No local marker: which revision is active is the database's pointer (and this driver's memory).
    expect(existsSync(join(root, 'agents', one.revision.agentId, 'active'))).toBe(false);
    expect(readdirSync(revisionPaths(root, one.revision.agentId, one.revision.id).dir)).toEqual(expect.arrayContaining(['manifest.json', 'logs']));
    expect(readFileSync(stateFile, 'utf8')).toBe('agent-owned');
    expect(statSync(stateFile).mtimeMs).toBe(stateBefore);
    expect(await driver.describeRuntime(two.revision, two.revision.id)).toMatchObject({ running: true, phase: 'ready' });
    await driver.stopRevision(two.revision, two.revision.id, { signal: signal() });
  });

  it.each([
    { redeploy: 'recreate' as const, scenario: { outcome: 'failed' as const } },
    // Prepared beside revision 1, the candidate fails only once told to go on (revision 1 stopped by then).
    { redeploy: 'prepare-beside' as const, scenario: { outcome: 'failed' as const, failsAfterGo: true } },
  ])(
    '[P-6][K-3][K-4] after a candidate whose startup fails ($redeploy), restoreRevision (the worker asks) brings the active revision back (same revision, same state, no pointer change), serving /readyz, and says so in its log',
    async ({ redeploy, scenario }) => {
      const { driver, root } = newDriver({ redeploy });
      const one = await activeRevision(driver);
      const stateFile = join(root, 'agents', one.revision.agentId, 'state', 'openclaw.db');
      writeFileSync(stateFile, 'agent-owned');
      const two = standInRevision(scenario, { agentId: one.revision.agentId, revision: 2 });

      const failed = await prepareSettled(driver, two.revision, two.manifest);
      expect(failed).toEqual({ state: 'failed', failure: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'The runtime failed to start.' } });
      // The prepare decides nothing more: the Agent runs nothing until the worker asks.
      expect(await driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: false });
      await driver.restoreRevision(one.revision, one.manifest, { kind: 'candidate-failed', revisionId: two.revision.id }, { signal: signal() });
      const back = await waitFor(
        'revision 1 to serve again',
        () => driver.describeRuntime(one.revision, one.revision.id),
        (d) => d.phase === 'ready',
        5_000,
      );
      expect(back.running).toBe(true);
      expect(await gatewayAnswers(root, one.revision)).toBe(true);
      // Recreate held: the candidate was gone before revision 1 started again; one runtime at a time.
      expect(alive(pidOf(root, two.revision.agentId, two.revision.id))).toBe(false);
      expect(startsOf(root, one.revision.agentId, one.revision.id)).toHaveLength(2);
      expect(await driver.describeRuntime(two.revision, two.revision.id)).toMatchObject({ running: false, lastFailureCode: 'PLUGIN_VERIFICATION_FAILED' });
      expect(readFileSync(stateFile, 'utf8')).toBe('agent-owned');
      expect(logOf(root, one.revision)).toContain(`[occ-local] brought back after candidate ${two.revision.id} failed`);

      // The worker's retry of the candidate stops revision 1 again (before the candidate starts, or once it is prepared).
      const oneAgain = pidOf(root, one.revision.agentId, one.revision.id);
      expect((await prepareSettled(driver, two.revision, two.manifest)).state).toBe('failed');
      expect(alive(oneAgain)).toBe(false);
      await driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
    },
  );

  it.each([
    { redeploy: 'recreate' as const, scenario: { preparingMs: 5_000, exitAfterMs: 200, exitOnce: true } },
    // Prepared beside revision 1, the candidate exits only once told to go on (revision 1 stopped by then).
    { redeploy: 'prepare-beside' as const, scenario: { exitAfterGoMs: 1_000, gateway: 'never' as const } },
  ])(
    '[P-6][K-3][K-4] a candidate that exits before activation ($redeploy) is reported by the next prepare (RUNTIME_EXITED) and brings nothing back on its own; restoreRevision (the worker asks) does',
    async ({ redeploy, scenario }) => {
      const { driver, root } = newDriver({ redeploy });
      const one = await activeRevision(driver);
      const two = standInRevision(scenario, { agentId: one.revision.agentId, revision: 2 });
      const firstPid = pidOf(root, one.revision.agentId, one.revision.id);
      const answer = await waitFor(
        'revision 1 to stop for the candidate',
        () => workerLook(driver, two.revision, two.manifest, signal()),
        (next) => next.state !== 'pending' || !alive(firstPid),
        10_000,
        0,
      );
      expect(answer.state).toBe('pending');
      expect(alive(firstPid)).toBe(false);

      // The candidate exits: the next prepare (which the exit's ended status wait brings at once) reports it.
      const reported = await waitFor(
        'the exit to be reported',
        () => driver.prepareRevision(two.revision, two.manifest, { signal: signal() }),
        (next) => next.state !== 'pending',
        10_000,
        100,
      );
      expect(reported).toEqual({ state: 'failed', failure: { code: 'RUNTIME_EXITED', message: 'The runtime failed to start.' } });
      // One decision, in the worker (worker/give-up-candidate.ts): the driver started nothing of the Agent by itself.
      expect(await driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: false });
      expect(logOf(root, one.revision)).not.toContain('brought back');

      await driver.restoreRevision(one.revision, one.manifest, { kind: 'candidate-failed', revisionId: two.revision.id }, { signal: signal() });
      await waitFor(
        'revision 1 to serve again',
        () => driver.describeRuntime(one.revision, one.revision.id),
        (d) => d.phase === 'ready',
        5_000,
      );
      expect(await gatewayAnswers(root, one.revision)).toBe(true);
      expect(logOf(root, one.revision)).toContain(`brought back after candidate ${two.revision.id} failed`);
      expect(pidOf(root, one.revision.agentId, one.revision.id)).not.toBe(firstPid);
      expect(startsOf(root, one.revision.agentId, one.revision.id)).toHaveLength(2);
      await driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
    },
  );

  it('[K-4] a failing candidate of an Agent nothing was activated for brings nothing back (the worker has no active revision to restore)', async () => {
    const { driver, root } = newDriver();
    const { revision, manifest } = standInRevision({ outcome: 'failed' });
    expect((await prepareSettled(driver, revision, manifest)).state).toBe('failed');
    expect(readdirSync(join(root, 'agents', revision.agentId, 'revisions'))).toEqual([revision.id]);
    expect(logOf(root, revision)).not.toContain('brought back');
  });

  it('stop SIGTERMs the runtime, SIGKILLs it after the grace period if it lingers, and keeps the files', async () => {
    const { driver, root } = newDriver({ stopGraceMs: 300 });
    const { revision, manifest } = standInRevision({ ignoreSigterm: true });
    await prepareSettled(driver, revision, manifest);
    await driver.activateRevision(revision, { signal: signal() });
    const pid = pidOf(root, revision.agentId, revision.id);
    const started = Date.now();
    await driver.stopRevision(revision, revision.id, { signal: signal() });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await waitFor(
      'the runtime to be gone',
      async () => alive(pid),
      (a) => !a,
      5_000,
    );
    expect(readFileSync(revisionPaths(root, revision.agentId, revision.id).logFile, 'utf8')).toContain('stand-in ignores SIGTERM');
    expect(await driver.describeRuntime(revision, revision.id)).toEqual({
      running: false,
      phase: null,
      startupId: null,
      restarts: 0,
      ready: false,
      deliveredSecrets: [],
      lastFailureCode: null,
      loaded: null,
    });
  });

  it('stopping the Agent also stops a candidate that is still preparing (one runtime per Agent)', async () => {
    const { driver, root } = newDriver();
    const one = standInRevision({});
    await prepareSettled(driver, one.revision, one.manifest);
    await driver.activateRevision(one.revision, { signal: signal() });
    const two = standInRevision({ preparingMs: 60_000 }, { agentId: one.revision.agentId, revision: 2 });
    await driver.prepareRevision(two.revision, two.manifest, { signal: signal() });
    const candidate = pidOf(root, two.revision.agentId, two.revision.id);
    await driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
    await waitFor(
      'the candidate to stop',
      async () => alive(candidate),
      (a) => !a,
      5_000,
    );
  });

  it("removeAgent (the deleted Agent's remove_agent work) stops whatever of it still runs and removes its files; another Agent's stay; a repeat finds nothing", async () => {
    const { driver, root } = newDriver();
    const one = await activeRevision(driver);
    const other = await activeRevision(driver);
    const pid = pidOf(root, one.revision.agentId, one.revision.id);
    const agent = { namespaceId: one.revision.namespaceId, agentId: one.revision.agentId };
    expect(await driver.removeAgent!(agent, { signal: signal() })).toEqual([{ kind: 'directory', name: join('agents', agent.agentId) }]);
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(root, 'agents', agent.agentId))).toBe(false);
    expect(existsSync(revisionPaths(root, other.revision.agentId, other.revision.id).manifest)).toBe(true);
    expect((await driver.describeRuntime(other.revision, other.revision.id)).running).toBe(true);
    expect(await driver.removeAgent!(agent, { signal: signal() })).toEqual([]);
  });
});

describe('local ComputeDriver: OCC_LOCAL_REDEPLOY=prepare-beside', () => {
  it('the setting is recreate unless prepare-beside is named; anything else refuses to start, naming the variable', () => {
    expect(localRedeploySetting({})).toBe('recreate');
    expect(localRedeploySetting({ OCC_LOCAL_REDEPLOY: '' })).toBe('recreate');
    expect(localRedeploySetting({ OCC_LOCAL_REDEPLOY: 'prepare-beside' })).toBe('prepare-beside');
    expect(() => localRedeploySetting({ OCC_LOCAL_REDEPLOY: 'beside' })).toThrow(/OCC_LOCAL_REDEPLOY must be recreate \(the default\) or prepare-beside/);
  });

  it('prepare-beside: a new revision prepares beside the serving one, which stops once the candidate is prepared and before it goes on; the Agent state is left alone, and retire keeps the old files', async () => {
    const { driver, root } = newDriver({ redeploy: 'prepare-beside' });
    const { one, oldPid, gatewayPid, stateFile, stateBefore } = await servingWithMarkedState(driver, root);

    // Preparing for 3 s: the first call's short watch (300 ms) ends while the candidate installs.
    const two = standInRevision({ preparingMs: 3_000 }, { agentId: one.revision.agentId, revision: 2 });
    const first = await workerLook(driver, two.revision, two.manifest, signal());
    expect(first.state).toBe('pending');
    // The old runtime serves while the candidate prepares.
    expect(alive(oldPid)).toBe(true);
    expect(await gatewayAnswers(root, one.revision)).toBe(true);
    const candidateGateway = () => gatewayPidOf(root, one.revision.agentId, two.revision.id);
    let answer = first;
    for (const until = Date.now() + 15_000; answer.state === 'pending' && Date.now() < until; ) {
      answer = await workerLook(driver, two.revision, two.manifest, signal());
      // Never two gateways of one Agent at once.
      const started = candidateGateway();
      expect(started !== null && alive(started) && alive(gatewayPid)).toBe(false);
    }
    expect(answer.state).toBe('ready');
    // Recreate: the old runtime and its gateway stopped before the candidate was told to go on.
    expect(alive(oldPid)).toBe(false);
    expect(alive(gatewayPid)).toBe(false);
    const log = (rev: string) => readFileSync(revisionPaths(root, one.revision.agentId, rev).logFile, 'utf8');
    const lineAt = (text: string, marker: string) =>
      text
        .split('\n')
        .find((l) => l.includes(marker))!
        .slice(0, 24);
    expect(lineAt(log(one.revision.id), 'runtime stopped') <= lineAt(log(two.revision.id), 'told to proceed')).toBe(true);
    expect(log(two.revision.id).indexOf('stand-in prepared')).toBeLessThan(log(two.revision.id).indexOf('stand-in proceeds'));

    await driver.activateRevision(two.revision, { signal: signal() });
    await driver.retireRevision(one.revision, one.revision.id, { signal: signal() });
    // No local marker: which revision is active is the database's pointer (and this driver's memory).
    expect(existsSync(join(root, 'agents', one.revision.agentId, 'active'))).toBe(false);
    expect(readdirSync(revisionPaths(root, one.revision.agentId, one.revision.id).dir)).toEqual(expect.arrayContaining(['manifest.json', 'logs']));
    expect(readFileSync(stateFile, 'utf8')).toBe('agent-owned');
    expect(statSync(stateFile).mtimeMs).toBe(stateBefore);
    expect(await driver.describeRuntime(two.revision, two.revision.id)).toMatchObject({ running: true, phase: 'ready' });
    await driver.stopRevision(two.revision, two.revision.id, { signal: signal() });
  });

  it("[P-6] prepare-beside: a prepared candidate awaits the worker's go — its prepare answers awaitsGo and stops nothing, and a go before it is prepared stops nothing either; the go (proceedRevision) stops the serving revision, then the candidate goes on", async () => {
    const { driver, root } = newDriver({ redeploy: 'prepare-beside' });
    const one = await activeRevision(driver);
    const oldPid = pidOf(root, one.revision.agentId, one.revision.id);
    // Preparing for 1 s: the first call's short watch ends before the candidate is prepared.
    const two = standInRevision({ preparingMs: 1_000 }, { agentId: one.revision.agentId, revision: 2 });
    const first = await driver.prepareRevision(two.revision, two.manifest, { signal: signal() });
    expect(first).toMatchObject({ state: 'pending', reason: 'RUNTIME_STARTING' });
    expect(first).not.toHaveProperty('awaitsGo');
    // A go while it still installs (a look that raced its start) stops nothing: it does not hold yet.
    await driver.proceedRevision!(two.revision, two.revision.id, { signal: signal() });
    expect(alive(oldPid)).toBe(true);
    for (const until = Date.now() + 15_000; (await driver.describeRuntime(two.revision, two.revision.id)).phase !== 'prepared'; ) {
      if (Date.now() > until) throw new Error('the candidate never reached prepared');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Prepared: the prepare answers at once and leaves the go to the worker (whose last look gives none).
    expect(await driver.prepareRevision(two.revision, two.manifest, { signal: signal() })).toMatchObject({ state: 'pending', reason: 'RUNTIME_STARTING', awaitsGo: true });
    expect(alive(oldPid)).toBe(true);
    expect(await gatewayAnswers(root, one.revision)).toBe(true);
    expect(logOf(root, two.revision)).not.toContain('told to proceed');

    await driver.proceedRevision!(two.revision, two.revision.id, { signal: signal() });
    expect(alive(oldPid)).toBe(false);
    expect(logOf(root, two.revision)).toContain('told to proceed');
    expect((await prepareSettled(driver, two.revision, two.manifest)).state).toBe('ready');
    await driver.stopRevision(two.revision, two.revision.id, { signal: signal() });
  });

  it('prepare-beside: a candidate whose startup fails before it is prepared never stops the serving revision: it keeps answering, and there is nothing to bring back', async () => {
    const { driver, root } = newDriver({ redeploy: 'prepare-beside' });
    const one = await activeRevision(driver);
    const oldPid = pidOf(root, one.revision.agentId, one.revision.id);
    const two = standInRevision({ outcome: 'failed' }, { agentId: one.revision.agentId, revision: 2 });
    expect(await prepareSettled(driver, two.revision, two.manifest)).toEqual({
      state: 'failed',
      failure: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'The runtime failed to start.' },
    });
    expect(alive(oldPid)).toBe(true);
    expect(await gatewayAnswers(root, one.revision)).toBe(true);
    // The worker still asks; the active revision runs, so nothing starts again.
    await driver.restoreRevision(one.revision, one.manifest, { kind: 'candidate-failed', revisionId: two.revision.id }, { signal: signal() });
    expect(pidOf(root, one.revision.agentId, one.revision.id)).toBe(oldPid);
    expect(startsOf(root, one.revision.agentId, one.revision.id)).toHaveLength(1);
    expect(logOf(root, one.revision)).not.toContain('brought back');
    expect(logOf(root, two.revision)).not.toContain('told to proceed');
    await driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
  });
});
