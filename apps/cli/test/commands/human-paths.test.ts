import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import { newDeployTarget, storePluginsUnchecked } from '../../../../test-support/deploy-helpers.ts';
import { adminCreate } from '../../../../test-support/world.ts';

const MISSING = 'openclaw:@openclaw/does-not-exist-xyz';

/** What `occ` prints about paths: decoded for people, the API's JSON pointers in -o json. */
describe('occ: paths in what a user reads', () => {
  let world: CliWorld;
  beforeAll(async () => {
    world = await startCliWorld();
    await adminCreate(world.controller, `/namespaces/${world.controller.defaultNamespaceId}/configurations`, { name: 'base', values: {} });
  });
  afterAll(() => world?.close());

  it('saving an Agent with a plugin the catalog does not offer: exit 2, the plugin named as typed', async () => {
    const run = await world.occ(['agents', 'create', 'bot', '--configuration', 'base', '--plugin', MISSING]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        [
          '^error: INVALID_REQUEST: The plugin catalog does not offer the selected plugin\\.',
          '  /plugins/openclaw:@openclaw/does-not-exist-xyz: UNSUPPORTED_VALUE',
          '  \\(request req_[0-9a-f-]+\\)\\n$',
        ].join('\\n'),
      ),
    );
    expect(run.stderr).not.toContain('~1');
  });

  it('a dry run the runtime would refuse: decoded on stderr, the JSON pointer kept in -o json', async () => {
    // An Agent saved before saving checked the catalog.
    const target = await newDeployTarget(world.controller, { plugins: { 'openclaw:browser': { enabled: true } } });
    await storePluginsUnchecked(world.controller, target, { [MISSING]: { enabled: true } });
    const run = await world.occ(['deploy', target.agentId, '--dry-run', '-o', 'json']);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('The runtime would refuse this revision at startup:\n  /plugins/openclaw:@openclaw/does-not-exist-xyz: UNSUPPORTED_VALUE\n');
    expect(JSON.parse(run.stdout).nativeConfiguration.violations).toEqual([{ path: '/plugins/openclaw:@openclaw~1does-not-exist-xyz', code: 'UNSUPPORTED_VALUE' }]);
  });
});
