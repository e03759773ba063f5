import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import { admit, newDeployTarget, scriptedByAgent, waitTerminal } from '../../../../test-support/deploy-helpers.ts';

const CODE = 'PLUGIN_VERIFICATION_FAILED';
const tableRows = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

/**
 * `occ runtime` of a revision whose deploy failed. The scripted ComputeDriver, like the local one
 * after an OCC restart, remembers no failure of a runtime it does not run: the CLI reads the last
 * failure from the deploy's replayed events.
 */
describe('occ runtime: the last failure of a failed deploy', () => {
  let world: CliWorld;
  let name: string;

  beforeAll(async () => {
    const script = scriptedByAgent();
    world = await startCliWorld({ worker: {}, compute: script.compute, work: { maxAttempts: 2 } });
    const target = await newDeployTarget(world.controller);
    script.prepare.set(target.agentId, () => ({ runtimeFailure: { code: CODE, message: 'the installed plugin does not match its integrity' } }));
    name = (await world.controller.request({ method: 'GET', url: target.url })).body.data.name;
    const revision = await admit(world.controller, target);
    expect((await waitTerminal(world.controller, target, revision.id)).state).toBe('failed');
  });
  afterAll(async () => {
    await world?.close();
  });

  it('is the newest failure of the replayed deployment events, not none', async () => {
    const json = await world.occ(['runtime', name, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ running: false, lastFailureCode: CODE });
    const table = await world.occ(['runtime', name]);
    const [header, row] = tableRows(table.stdout);
    expect(row![header!.indexOf('LAST FAILURE')]).toBe(CODE);
  });
});
