import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastDeploymentFailure, type DeploymentEventData } from '@occ/contracts';
import { composeController } from '../../src/composition/compose.ts';
import { createLocalComputeDriver, type LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { admit, newDeployTarget, PLUGIN, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { eventShape, parseSse } from '../../../../test-support/sse-events.ts';
import { probeStandInGateway, standInLaunch, tempRoot, STAND_IN_CONFINEMENT } from '../../../../test-support/stand-in-runtime.ts';

const ATTEMPTS = 4;
const CODE = 'PLUGIN_VERIFICATION_FAILED';

/** What one failed attempt of the stand-in shows: its claim, its runtime's steps, its failed start. */
const failedAttempt = (attempt: number, selection: string) => [
  `claimed ${attempt}`,
  'step plan',
  'step write-config',
  `step install ${selection}`,
  'step install',
  'step registry-refresh',
  `step ${CODE}`,
];

/**
 * A deploy whose runtime fails at every start, until its attempts are spent: the replayed events
 * (a new connection, or a new OCC on the same database and data directory) are the live stream,
 * attempt by attempt, not every claim first and every failure after.
 */
describe('deployment events of a deploy that failed several times', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  let revisionId: string;
  /** The revision's one selection key, as admitted. */
  let selection: string;
  let live: Promise<string>;
  const eventsUrl = () => `${target.url}/deployments/${revisionId}/events`;

  beforeAll(async () => {
    const local = () =>
      createLocalComputeDriver({ confinement: STAND_IN_CONFINEMENT, rootDir: root, launch: standInLaunch, probeGateway: probeStandInGateway, readyWaitMs: 200, stopGraceMs: 500 });
    driver = local();
    t = await startTestController({ compute: driver, work: { maxAttempts: ATTEMPTS }, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    t.controller.deps.eventStreams = { pollMs: 50 };
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    target = await newDeployTarget(t, { plugins: { [PLUGIN]: { enabled: true } }, values: { standIn: { startupSteps: true, outcome: 'failed', errorCode: CODE } } });
    const revision = await admit(t, target);
    revisionId = revision.id;
    selection = Object.keys(revision.plugins)[0]!;
    live = fetch(`${baseUrl}${eventsUrl()}`, { headers: { authorization: `Bearer ${t.adminKey}` } }).then((res) => res.text());
  });
  afterAll(async () => {
    // The live stream ends at the outcome; a failed assertion must not leave it open under the closing app.
    await live?.catch(() => undefined);
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('replays each attempt in the order it happened, exactly as the live stream carried it, also after a restart', async () => {
    const status = await waitTerminal(t, target, revisionId, 60_000);
    expect(status).toMatchObject({ state: 'failed', reasonCode: CODE, attempts: ATTEMPTS });
    const replay = parseSse((await t.request({ method: 'GET', url: eventsUrl() })).raw);
    expect(replay.map(eventShape)).toEqual(['admitted', ...Array.from({ length: ATTEMPTS }, (_, i) => failedAttempt(i + 1, selection)).flat(), `failed ${CODE}`]);
    // The live stream, read over a socket while the deploy ran, carried the same events with the same ids.
    expect(parseSse(await live)).toEqual(replay);

    // A restarted OCC (a new controller and driver on the same database and data directory, nothing
    // in memory) replays the same history; its live runtime view no longer knows the last failure,
    // the history does (what the console and `occ runtime` read it from).
    const restarted = await composeController({
      database: t.database,
      secretKey: randomBytes(32),
      logger: false,
      worker: false,
      compute: createLocalComputeDriver({ confinement: STAND_IN_CONFINEMENT, rootDir: root, launch: standInLaunch, probeGateway: probeStandInGateway }),
    });
    try {
      const get = (url: string) => restarted.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.adminKey}` } });
      const again = parseSse((await get(eventsUrl())).body);
      expect(again).toEqual(replay);
      const view = await get(`${target.url}/deployments/${revisionId}/runtime`);
      expect(view.json().data).toMatchObject({ running: false, lastFailureCode: null });
      expect(lastDeploymentFailure(again.map((e) => e.data as DeploymentEventData))).toBe(CODE);
    } finally {
      await restarted.close();
    }
  });
});
