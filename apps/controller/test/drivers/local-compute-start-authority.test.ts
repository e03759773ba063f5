import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ComputeValidationError } from '../../src/core/ports/compute-driver.ts';
import { RUNTIME_START_DENIALS } from '../../src/core/ports/runtime-start.ts';
import { createLocalComputeDriver, type LocalComputeDriver, type LocalComputeOptions } from '../../src/drivers/compute/local/index.ts';
import { agentPaths, revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { runtimeEnvironment } from '../../src/drivers/compute/runtime-contract/runtime-env.ts';
import { isReservedVariable, StartRefused } from '../../src/drivers/compute/runtime-contract/start-refusal.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import {
  filesUnder,
  prepareSettled,
  probeStandInGateway,
  processAlive,
  sha256Of,
  standInLaunch,
  standInReceivedSecrets,
  standInRevision,
  tempRoot,
  type StandInScenario,
  STAND_IN_CONFINEMENT,
} from '../../../../test-support/stand-in-runtime.ts';
import { restoreAsTheWorker } from '../../../../test-support/restore-as-worker.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

/**
 * Every start of a local runtime asks the control plane (RuntimeStartAuthority): the first start,
 * a supervised restart, bringing the active revision back, and recovery after OCC restarts. The
 * Secrets it delivers reach the runtime (observed through the stand-in gateway's sha256 report,
 * never /proc) and nothing else; a refusal never starts a runtime without them.
 */
const CANARY = 'canary-provider-key-4f1c9e';
const ROTATED = 'canary-rotated-key-77a0d2';

const drivers: LocalComputeDriver[] = [];
const roots: string[] = [];
afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Rig {
  driver: LocalComputeDriver;
  root: string;
  authority: StaticStartAuthority;
  events: Array<[string, Record<string, unknown>]>;
}

function rig(overrides: Partial<LocalComputeOptions> = {}, shared?: { root: string; authority: StaticStartAuthority }): Rig {
  const root = shared?.root ?? tempRoot();
  if (!shared) roots.push(root);
  const authority = shared?.authority ?? new StaticStartAuthority();
  const events: Rig['events'] = [];
  const driver = createLocalComputeDriver({
    confinement: STAND_IN_CONFINEMENT,
    rootDir: root,
    launch: standInLaunch,
    probeGateway: probeStandInGateway,
    stopGraceMs: 500,
    readyWaitMs: 300,
    backoff: { baseMs: 100, capMs: 400, resetAfterMs: 5_000 },
    log: (event, fields) => events.push([event, fields]),
    ...overrides,
  });
  driver.start(authority);
  drivers.push(driver);
  return { driver, root, authority, events };
}

const signal = () => AbortSignal.timeout(10_000);
const logOf = (root: string, r: { agentId: string; id: string }) => readFileSync(revisionPaths(root, r.agentId, r.id).logFile, 'utf8');
const startsOf = (root: string, r: { agentId: string; id: string }) => {
  try {
    return readFileSync(join(revisionPaths(root, r.agentId, r.id).dir, 'stand-in-starts'), 'utf8')
      .trim()
      .split('\n').length;
  } catch {
    return 0;
  }
};
const pidOf = (root: string, r: { agentId: string; id: string }) => Number(readFileSync(revisionPaths(root, r.agentId, r.id).pidFile, 'utf8'));

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return null;
}

/** A revision bound to PROVIDER_API_KEY (and more), prepared, activated and pointed at. */
async function activeWithSecret(r: Rig, scenario: StandInScenario = {}, value = CANARY) {
  const one = standInRevision(scenario, { secretBindings: ['PROVIDER_API_KEY'] });
  r.authority.deliver(one.revision.id, { PROVIDER_API_KEY: value });
  expect(await prepareSettled(r.driver, one.revision, one.manifest)).toEqual({ state: 'ready', warnings: [] });
  await r.driver.activateRevision(one.revision, { signal: signal() });
  return one;
}

describe('local ComputeDriver: Secret delivery at every start', () => {
  it('[P-7] a first start delivers the bound variables to the runtime (and its gateway); the value is in no file, no log line, no event and not in the manifest', async () => {
    const r = rig();
    const { revision, manifest } = standInRevision({}, { secretBindings: ['PROVIDER_API_KEY', 'SEARCH_TOKEN'] });
    r.authority.deliver(revision.id, { PROVIDER_API_KEY: CANARY, SEARCH_TOKEN: ROTATED });
    expect(await prepareSettled(r.driver, revision, manifest)).toEqual({ state: 'ready', warnings: [] });

    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ PROVIDER_API_KEY: sha256Of(CANARY), SEARCH_TOKEN: sha256Of(ROTATED) });
    expect(r.authority.startsOf(revision.id)).toBe(1);
    expect(manifest.secretEnvironment).toEqual(['PROVIDER_API_KEY', 'SEARCH_TOKEN']);

    const log = logOf(r.root, revision);
    // Counted, not named: the runtime log is readable with Agent read, the names are Configuration content.
    expect(log).toContain('[occ-local] delivered 2 Secret variables');
    expect(log).not.toContain('[occ-local] delivered PROVIDER_API_KEY');
    // The runtime took them out of its own environment (only its gateway has them).
    const startLine = log.split('\n').find((l) => l.includes('stand-in start'))!;
    expect(startLine).toContain('secrets=PROVIDER_API_KEY,SEARCH_TOKEN env=');
    expect(startLine.split('env=')[1]!.split(',')).not.toContain('PROVIDER_API_KEY');

    const files = filesUnder(r.root);
    expect(files).toEqual(expect.arrayContaining([revisionPaths(r.root, revision.agentId, revision.id).manifest, revisionPaths(r.root, revision.agentId, revision.id).logFile]));
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(bytes.includes(CANARY), file).toBe(false);
      expect(bytes.includes(ROTATED), file).toBe(false);
    }
    const events = JSON.stringify(r.events);
    expect(events).toContain('PROVIDER_API_KEY');
    expect(events).not.toContain(CANARY);

    // Whatever a provider or plugin prints into the runtime log, the delivered value is redacted on read.
    appendFileSync(revisionPaths(r.root, revision.agentId, revision.id).logFile, `provider said: bad key ${CANARY} (${ROTATED})\n`);
    const read = await r.driver.readLogs(revision, revision.id, { tail: 5 });
    expect(read.lines.at(-1)).toBe('provider said: bad key [redacted] ([redacted])');

    expect(await r.driver.describeRuntime(revision, revision.id)).toMatchObject({
      running: true,
      phase: 'ready',
      ready: true,
      deliveredSecrets: ['PROVIDER_API_KEY', 'SEARCH_TOKEN'],
      lastFailureCode: null,
    });
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('a revision without Secret bindings starts with nothing delivered, and still asks the control plane', async () => {
    const r = rig();
    const { revision, manifest } = standInRevision({});
    expect((await prepareSettled(r.driver, revision, manifest)).state).toBe('ready');
    expect(r.authority.startsOf(revision.id)).toBe(1);
    expect(await standInReceivedSecrets(r.root, revision)).toEqual({});
    expect(logOf(r.root, revision)).not.toContain('delivered');
    expect(await r.driver.describeRuntime(revision, revision.id)).toMatchObject({ ready: true, deliveredSecrets: [] });
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('a supervised restart asks the control plane again: a rotated value reaches the restarted runtime', async () => {
    const r = rig();
    const { revision } = await activeWithSecret(r);
    const before = await r.driver.describeRuntime(revision, revision.id);
    r.authority.deliver(revision.id, { PROVIDER_API_KEY: ROTATED });
    process.kill(pidOf(r.root, revision), 'SIGKILL');

    const after = await waitFor(
      'the restart to serve',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.ready && d.startupId !== before.startupId,
      10_000,
    );
    expect(after).toMatchObject({ running: true, restarts: 1, deliveredSecrets: ['PROVIDER_API_KEY'], lastFailureCode: null });
    expect(r.authority.startsOf(revision.id)).toBe(2);
    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ PROVIDER_API_KEY: sha256Of(ROTATED) });
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('a refused first start fails prepare with the refusal code and a fixed message; nothing runs; once allowed, the next prepare starts it', async () => {
    const r = rig();
    const { revision, manifest } = standInRevision({}, { secretBindings: ['PROVIDER_API_KEY'] });
    r.authority.deliver(revision.id, { PROVIDER_API_KEY: CANARY }).deny(revision.id, 'SECRET_ACCESS_REVOKED', 'PROVIDER_API_KEY');

    const refused = await r.driver.prepareRevision(revision, manifest, { signal: signal() });
    expect(refused).toEqual({ state: 'failed', failure: { code: 'SECRET_ACCESS_REVOKED', message: RUNTIME_START_DENIALS.SECRET_ACCESS_REVOKED } });
    expect(startsOf(r.root, revision)).toBe(0);
    expect(logOf(r.root, revision)).toContain('[occ-local] runtime start refused (SECRET_ACCESS_REVOKED)');
    expect(logOf(r.root, revision)).not.toContain('runtime started');
    expect(await r.driver.describeRuntime(revision, revision.id)).toMatchObject({ running: false, ready: false, deliveredSecrets: [], lastFailureCode: 'SECRET_ACCESS_REVOKED' });

    r.authority.deny(revision.id, 'SECRET_UNAVAILABLE', 'PROVIDER_API_KEY');
    expect(await r.driver.prepareRevision(revision, manifest, { signal: signal() })).toMatchObject({ state: 'failed', failure: { code: 'SECRET_UNAVAILABLE' } });

    r.authority.allow(revision.id);
    expect((await prepareSettled(r.driver, revision, manifest)).state).toBe('ready');
    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ PROVIDER_API_KEY: sha256Of(CANARY) });
    expect(await r.driver.describeRuntime(revision, revision.id)).toMatchObject({ ready: true, lastFailureCode: null });
    expect(r.authority.startsOf(revision.id)).toBe(3);
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('[K-4] after a refused candidate, restoreRevision (the worker asks) brings the active revision back, re-authorized with its own Secrets', async () => {
    const r = rig();
    const one = await activeWithSecret(r);
    const two = standInRevision({}, { agentId: one.revision.agentId, namespaceId: one.revision.namespaceId, revision: 2, secretBindings: ['PROVIDER_API_KEY'] });
    r.authority.deny(two.revision.id, 'SECRET_UNAVAILABLE', 'PROVIDER_API_KEY');

    expect(await r.driver.prepareRevision(two.revision, two.manifest, { signal: signal() })).toMatchObject({ state: 'failed', failure: { code: 'SECRET_UNAVAILABLE' } });
    await r.driver.restoreRevision(one.revision, one.manifest, { kind: 'candidate-failed', revisionId: two.revision.id }, { signal: signal() });
    await waitFor(
      'revision 1 to serve again',
      () => r.driver.describeRuntime(one.revision, one.revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(r.authority.startsOf(one.revision.id)).toBe(2);
    expect(await standInReceivedSecrets(r.root, one.revision)).toEqual({ PROVIDER_API_KEY: sha256Of(CANARY) });
    expect(logOf(r.root, one.revision)).toContain(`brought back after candidate ${two.revision.id} failed`);
    await r.driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
  });

  it('a refused supervised restart keeps the runtime down and is retried with backoff (asking again each time) until the grant is restored', async () => {
    const r = rig();
    const { revision } = await activeWithSecret(r);
    r.authority.deny(revision.id, 'SECRET_ACCESS_REVOKED', 'PROVIDER_API_KEY');
    const pid = pidOf(r.root, revision);
    process.kill(pid, 'SIGKILL');

    await waitFor(
      'four refused restarts',
      async () => r.authority.startsOf(revision.id),
      (n) => n >= 5,
      10_000,
    );
    const down = await r.driver.describeRuntime(revision, revision.id);
    expect(down).toMatchObject({ running: false, ready: false, deliveredSecrets: [], lastFailureCode: 'SECRET_ACCESS_REVOKED' });
    expect(down.restarts).toBeGreaterThanOrEqual(3);
    // Never started without its Secrets: the only start is the first one.
    expect(startsOf(r.root, revision)).toBe(1);
    expect(processAlive(pid)).toBe(false);
    const log = logOf(r.root, revision);
    expect(log.match(/runtime start refused \(SECRET_ACCESS_REVOKED\)/g)!.length).toBeGreaterThanOrEqual(3);
    const delays = [...log.matchAll(/restarting in (\d+) ms/g)].map((m) => Number(m[1]));
    expect(delays.slice(0, 4)).toEqual([100, 200, 400, 400]);

    r.authority.allow(revision.id);
    const back = await waitFor(
      'the runtime to come back',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(back).toMatchObject({ running: true, deliveredSecrets: ['PROVIDER_API_KEY'], lastFailureCode: null });
    expect(startsOf(r.root, revision)).toBe(2);
    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ PROVIDER_API_KEY: sha256Of(CANARY) });
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('describeRuntime reports the last failure: a failed startup code, RUNTIME_EXITED after an unexpected exit, null again once a start serves', async () => {
    // A 1 s restart delay keeps RUNTIME_EXITED observable between the exit and the restart.
    const r = rig({ backoff: { baseMs: 1_000, capMs: 1_000, resetAfterMs: 60_000 } });
    const failing = standInRevision({ outcome: 'failed', errorCode: 'PLUGIN_VERIFICATION_FAILED' });
    expect((await prepareSettled(r.driver, failing.revision, failing.manifest)).state).toBe('failed');
    expect(await r.driver.describeRuntime(failing.revision, failing.revision.id)).toMatchObject({ running: false, ready: false, lastFailureCode: 'PLUGIN_VERIFICATION_FAILED' });

    const { revision } = await activeWithSecret(r, { exitAfterMs: 1_500, exitOnce: true });
    await waitFor(
      'the exit',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.lastFailureCode === 'RUNTIME_EXITED',
      10_000,
    );
    const back = await waitFor(
      'the restart to serve',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(back).toMatchObject({ restarts: 1, lastFailureCode: null });
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });
});

describe("local ComputeDriver: the Agent's codex_pat", () => {
  const PAT = 'canary-codex-pat-91e3b7c5';

  it('[P-1][P-7] a codex revision starts with its codex_pat as OCC_RUNTIME_CODEX_PAT: the manifest names the variable, the runtime gets the value (seen as a hash), no file, log line or event holds it', async () => {
    const r = rig();
    const { revision, manifest } = standInRevision({}, { harness: 'codex', codexPat: true, secretBindings: ['PROVIDER_API_KEY'] });
    r.authority.deliver(revision.id, { PROVIDER_API_KEY: CANARY }).deliverCodexPat(revision.id, PAT);
    expect(manifest.harnessAuth).toEqual({ method: 'codex_pat', environment: 'OCC_RUNTIME_CODEX_PAT' });
    expect(manifest.secretEnvironment).toEqual(['PROVIDER_API_KEY']);
    expect(await prepareSettled(r.driver, revision, manifest)).toEqual({ state: 'ready', warnings: [] });

    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ PROVIDER_API_KEY: sha256Of(CANARY), OCC_RUNTIME_CODEX_PAT: sha256Of(PAT) });
    const paths = revisionPaths(r.root, revision.agentId, revision.id);
    expect(JSON.parse(readFileSync(paths.manifest, 'utf8')).harnessAuth).toEqual({ method: 'codex_pat', environment: 'OCC_RUNTIME_CODEX_PAT' });
    const startLine = logOf(r.root, revision)
      .split('\n')
      .find((l) => l.includes('stand-in start'))!;
    expect(startLine).toContain('secrets=PROVIDER_API_KEY harness=OCC_RUNTIME_CODEX_PAT env=');
    // The runtime took it out of its own environment; its transport secret stays with it.
    expect(startLine.split('env=')[1]!.split(',')).not.toContain('OCC_RUNTIME_CODEX_PAT');
    expect(startLine.split('env=')[1]!.split(',')).toContain('OCC_RUNTIME_TRANSPORT_SECRET');
    for (const file of filesUnder(r.root)) expect(readFileSync(file).includes(PAT), file).toBe(false);
    expect(JSON.stringify(r.events)).not.toContain(PAT);

    // The live view lists the Configuration's variables only (docs/deployments.md).
    expect(await r.driver.describeRuntime(revision, revision.id)).toMatchObject({ ready: true, deliveredSecrets: ['PROVIDER_API_KEY'] });
    appendFileSync(paths.logFile, `codex said: bad token ${PAT}\n`);
    expect((await r.driver.readLogs(revision, revision.id, { tail: 5 })).lines.at(-1)).toBe('codex said: bad token [redacted]');
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });

  it('a supervised restart asks again: a rotated codex_pat reaches the restarted runtime; a refused one keeps it down (SECRET_ACCESS_REVOKED)', async () => {
    const r = rig();
    const { revision, manifest } = standInRevision({}, { harness: 'codex', codexPat: true });
    r.authority.deliverCodexPat(revision.id, PAT);
    expect((await prepareSettled(r.driver, revision, manifest)).state).toBe('ready');
    await r.driver.activateRevision(revision, { signal: signal() });
    const before = await r.driver.describeRuntime(revision, revision.id);

    r.authority.deliverCodexPat(revision.id, ROTATED);
    process.kill(pidOf(r.root, revision), 'SIGKILL');
    await waitFor(
      'the restart to serve',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.ready && d.startupId !== before.startupId,
      10_000,
    );
    expect(await standInReceivedSecrets(r.root, revision)).toEqual({ OCC_RUNTIME_CODEX_PAT: sha256Of(ROTATED) });

    r.authority.deny(revision.id, 'SECRET_ACCESS_REVOKED', 'OCC_RUNTIME_CODEX_PAT');
    process.kill(pidOf(r.root, revision), 'SIGKILL');
    const down = await waitFor(
      'a refused restart',
      () => r.driver.describeRuntime(revision, revision.id),
      (d) => d.lastFailureCode === 'SECRET_ACCESS_REVOKED',
      10_000,
    );
    expect(down).toMatchObject({ running: false, ready: false });
    expect(startsOf(r.root, revision)).toBe(2);
    expect(r.events).toContainEqual([
      'compute.local.start_refused',
      { agentId: revision.agentId, revisionId: revision.id, code: 'SECRET_ACCESS_REVOKED', variable: 'OCC_RUNTIME_CODEX_PAT' },
    ]);
    await r.driver.stopRevision(revision, revision.id, { signal: signal() });
  });
});

describe('local ComputeDriver: reserved variables', () => {
  it('refuses a binding that names a reserved variable (OCC_RUNTIME_CODEX_PAT too: SECRET_VARIABLE_RESERVED), at validation (deploy) and at start', async () => {
    for (const name of [
      'OCC_RUNTIME_CODEX_PAT',
      'OCC_RUNTIME_TRANSPORT_SECRET',
      'OCC_RUNTIME_STATUS_TOKEN',
      'OCC_SECRET_KEY',
      'OPENCLAW_CONFIG_PATH',
      'NODE_OPTIONS',
      'NODE_EXTRA_CA_CERTS',
      'NPM_CONFIG_REGISTRY',
      'LD_PRELOAD',
      'PATH',
      'HOME',
      'TMPDIR',
      'LANG',
      'HTTPS_PROXY',
      'NO_PROXY',
      'SSL_CERT_FILE',
      'OPENSSL_CONF',
      'OPENSSL_MODULES',
      'BASH_ENV',
      'ENV',
      'GIT_SSH_COMMAND',
      'PYTHONPATH',
      'DYLD_INSERT_LIBRARIES',
      'SHELL',
    ]) {
      expect(isReservedVariable(name), name).toBe(true);
    }
    for (const name of ['PROVIDER_API_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'PATHFINDER_KEY']) expect(isReservedVariable(name), name).toBe(false);

    const r = rig();
    const { revision, manifest } = standInRevision({}, { secretBindings: ['PROVIDER_API_KEY', 'NODE_OPTIONS'] });
    const refused = thrownBy(() => r.driver.validateRevision(revision));
    expect(refused).toBeInstanceOf(ComputeValidationError);
    expect(refused).toMatchObject({ code: 'SECRET_VARIABLE_RESERVED' });
    expect((refused as Error).message).toContain('NODE_OPTIONS');
    await expect(r.driver.prepareRevision(revision, manifest, { signal: signal() })).rejects.toThrow(ComputeValidationError);
    expect(r.authority.starts).toEqual([]);

    // At start (whatever the authority delivers): neither side can replace the other.
    const paths = revisionPaths(r.root, revision.agentId, revision.id);
    const input = {
      base: {},
      agent: agentPaths(r.root, revision.agentId),
      revision: paths,
      statusToken: 's'.repeat(43),
      gatewayToken: 'g'.repeat(43),
      transportSecret: 't'.repeat(43),
      network: {},
    };
    expect(() => runtimeEnvironment({ ...input, secrets: { OCC_RUNTIME_STATUS_TOKEN: CANARY } })).toThrow(StartRefused);
    const collision = thrownBy(() => runtimeEnvironment({ ...input, secrets: { PROVIDER_API_KEY: 'v', HOME: CANARY } }));
    expect(collision).toBeInstanceOf(StartRefused);
    expect(collision).toMatchObject({ code: 'SECRET_VARIABLE_RESERVED', variable: 'HOME' });
    expect((collision as Error).message).not.toContain(CANARY);
    expect(runtimeEnvironment({ ...input, secrets: { PROVIDER_API_KEY: 'v' } })).toMatchObject({ PROVIDER_API_KEY: 'v', OCC_RUNTIME_STATUS_TOKEN: 's'.repeat(43) });

    // Only the Agent's codex_pat arrives as OCC_RUNTIME_CODEX_PAT: a Configuration binding of that name is refused.
    const codex = standInRevision({}, { harness: 'codex', codexPat: true, secretBindings: ['OCC_RUNTIME_CODEX_PAT'] });
    expect(thrownBy(() => r.driver.validateRevision(codex.revision))).toMatchObject({
      code: 'SECRET_VARIABLE_RESERVED',
      message: expect.stringContaining('OCC_RUNTIME_CODEX_PAT'),
    });
    await expect(r.driver.prepareRevision(codex.revision, codex.manifest, { signal: signal() })).rejects.toThrow(ComputeValidationError);
    expect(r.authority.starts).toEqual([]);
    expect(thrownBy(() => runtimeEnvironment({ ...input, secrets: { OCC_RUNTIME_CODEX_PAT: CANARY }, codexPat: 'v'.repeat(8) }))).toMatchObject({
      code: 'SECRET_VARIABLE_RESERVED',
      variable: 'OCC_RUNTIME_CODEX_PAT',
    });
    expect(runtimeEnvironment({ ...input, secrets: {}, codexPat: CANARY })).toMatchObject({ OCC_RUNTIME_CODEX_PAT: CANARY, OCC_RUNTIME_TRANSPORT_SECRET: 't'.repeat(43) });
    expect(runtimeEnvironment({ ...input, secrets: {} })).not.toHaveProperty('OCC_RUNTIME_CODEX_PAT');
  });
});

describe('local ComputeDriver: recovery from the database pointer', () => {
  it('[K-7] after a restart it runs what the pointer names (the worker restores it), not what this driver last activated', async () => {
    const first = rig();
    const one = await activeWithSecret(first);
    // Revision 2 was staged here (Recreate stopped revision 1), but never activated by this driver.
    const two = standInRevision({}, { agentId: one.revision.agentId, namespaceId: one.revision.namespaceId, revision: 2, secretBindings: ['PROVIDER_API_KEY'] });
    first.authority.deliver(two.revision.id, { PROVIDER_API_KEY: ROTATED });
    expect((await prepareSettled(first.driver, two.revision, two.manifest)).state).toBe('ready');
    await first.driver.close();

    // The database's pointer names revision 2 (another worker moved it).
    const second = rig({}, { root: first.root, authority: first.authority });
    await restoreAsTheWorker(second.driver, [two]);
    const running = await waitFor(
      'revision 2 to serve',
      () => second.driver.describeRuntime(two.revision, two.revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(running).toMatchObject({ deliveredSecrets: ['PROVIDER_API_KEY'] });
    expect(await standInReceivedSecrets(first.root, two.revision)).toEqual({ PROVIDER_API_KEY: sha256Of(ROTATED) });
    expect(await second.driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: false });
    expect(startsOf(first.root, one.revision)).toBe(1);
    expect(startsOf(first.root, two.revision)).toBe(2);
    expect(second.events.some(([event, fields]) => event === 'compute.local.recovered' && fields.revisionId === two.revision.id)).toBe(true);
    await second.driver.stopRevision(two.revision, two.revision.id, { signal: signal() });
  });

  it('a revision staged before manifests carried harnessAuth is brought back, its manifest completed with harnessAuth: null', async () => {
    const first = rig();
    const one = await activeWithSecret(first);
    await first.driver.close();
    const manifestPath = revisionPaths(first.root, one.revision.agentId, one.revision.id).manifest;
    const { harnessAuth: _dropped, ...older } = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify(older), { mode: 0o600 });

    const second = rig({}, { root: first.root, authority: first.authority });
    await restoreAsTheWorker(second.driver, [one]);
    await waitFor(
      'the runtime to come back',
      () => second.driver.describeRuntime(one.revision, one.revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(JSON.parse(readFileSync(manifestPath, 'utf8'))).toEqual(one.manifest);
    await second.driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
  });

  it('a restart alone brings nothing back; a named revision not staged on this host is logged and skipped', async () => {
    const first = rig();
    const one = await activeWithSecret(first);
    await first.driver.close();

    const elsewhere = standInRevision({});
    const second = rig({}, { root: first.root, authority: first.authority });
    await restoreAsTheWorker(second.driver, [elsewhere]);
    expect(await second.driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: false });
    expect(startsOf(first.root, one.revision)).toBe(1);
    expect(first.authority.startsOf(one.revision.id)).toBe(1);
    expect(second.events).toContainEqual([
      'compute.local.recovery_skipped',
      { agentId: elsewhere.revision.agentId, revisionId: elsewhere.revision.id, reason: 'REVISION_NOT_STAGED' },
    ]);
    expect(() => statSync(join(first.root, 'agents', elsewhere.revision.agentId))).toThrow();
  });

  it('recovery is re-authorized: a refused start is retried with backoff and the runtime comes back once allowed', async () => {
    const first = rig();
    const one = await activeWithSecret(first);
    await first.driver.close();

    first.authority.deny(one.revision.id, 'SECRET_ACCESS_REVOKED', 'PROVIDER_API_KEY');
    const second = rig({}, { root: first.root, authority: first.authority });
    await restoreAsTheWorker(second.driver, [one]);
    await waitFor(
      'refused retries',
      async () => first.authority.startsOf(one.revision.id),
      (n) => n >= 3,
      10_000,
    );
    expect(await second.driver.describeRuntime(one.revision, one.revision.id)).toMatchObject({ running: false, lastFailureCode: 'SECRET_ACCESS_REVOKED' });
    expect(startsOf(first.root, one.revision)).toBe(1);

    first.authority.allow(one.revision.id);
    await waitFor(
      'the runtime to come back',
      () => second.driver.describeRuntime(one.revision, one.revision.id),
      (d) => d.ready,
      10_000,
    );
    expect(startsOf(first.root, one.revision)).toBe(2);
    await second.driver.stopRevision(one.revision, one.revision.id, { signal: signal() });
  });
});
