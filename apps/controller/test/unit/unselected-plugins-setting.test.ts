import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRuntimeEnvironment } from '../../../runtime/src/environment.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { unselectedPluginsSetting } from '../../src/composition/unselected-plugins.ts';
import { agentPaths, revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { runtimeEnvironment } from '../../src/drivers/compute/runtime-contract/runtime-env.ts';

// The Installation setting OCC_OPENCLAW_UNSELECTED_PLUGINS (docs/plugin-policy.md, "Only what was
// selected") on its way from OCC's environment to the runtime's translator. No processes.
describe('OCC_OPENCLAW_UNSELECTED_PLUGINS', () => {
  it('is `disable` unless set to `keep`; anything else stops the local ComputeDriver from being built', async () => {
    expect(unselectedPluginsSetting({})).toBe('disable');
    expect(unselectedPluginsSetting({ OCC_OPENCLAW_UNSELECTED_PLUGINS: '' })).toBe('disable');
    expect(unselectedPluginsSetting({ OCC_OPENCLAW_UNSELECTED_PLUGINS: 'disable' })).toBe('disable');
    expect(unselectedPluginsSetting({ OCC_OPENCLAW_UNSELECTED_PLUGINS: 'keep' })).toBe('keep');
    expect(() => unselectedPluginsSetting({ OCC_OPENCLAW_UNSELECTED_PLUGINS: 'off' })).toThrow('OCC_OPENCLAW_UNSELECTED_PLUGINS must be one of disable, keep.');
    await expect(createComputeDriver('local', { dataDir: join(tmpdir(), `occ-${randomUUID()}`), env: { OCC_OPENCLAW_UNSELECTED_PLUGINS: 'Keep' } })).rejects.toThrow(
      /OCC_OPENCLAW_UNSELECTED_PLUGINS/,
    );
  });

  const root = join(tmpdir(), `occ-unselected-${randomUUID()}`);
  const agentId = `agt_${randomUUID()}`;
  const build = (unselectedPlugins?: string) =>
    runtimeEnvironment({
      base: { PATH: '/usr/bin' },
      agent: agentPaths(root, agentId),
      revision: revisionPaths(root, agentId, `rev_${randomUUID()}`),
      statusToken: 's'.repeat(24),
      gatewayToken: 'g'.repeat(24),
      transportSecret: 't'.repeat(43),
      network: {},
      secrets: {},
      ...(unselectedPlugins ? { unselectedPlugins } : {}),
    });

  it('reaches the runtime as OCC_RUNTIME_UNSELECTED_PLUGINS, which the runtime reads (absent: disable; invalid: the start fails)', () => {
    expect(build('keep').OCC_RUNTIME_UNSELECTED_PLUGINS).toBe('keep');
    expect(build()).not.toHaveProperty('OCC_RUNTIME_UNSELECTED_PLUGINS');
    const modeOf = (env: Record<string, string>) => {
      const { result } = readRuntimeEnvironment({ ...env });
      return 'unselectedPlugins' in result ? result.unselectedPlugins : result.message;
    };
    expect(modeOf(build('keep'))).toBe('keep');
    expect(modeOf(build('disable'))).toBe('disable');
    expect(modeOf(build())).toBe('disable');
    expect(modeOf({ ...build(), OCC_RUNTIME_UNSELECTED_PLUGINS: 'sometimes' })).toBe(
      'The runtime environment is incomplete: OCC_RUNTIME_UNSELECTED_PLUGINS must be disable or keep.',
    );
  });
});
