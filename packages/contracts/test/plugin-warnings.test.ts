import { describe, expect, it } from 'vitest';
import { admitPluginWarnings, isAdmissibleWarning } from '../src/index.ts';

const selections = new Set(['openclaw:a', 'openclaw:b']);

describe('plugin warnings a deploy admits', () => {
  it('admits a selected plugin with a closed code', () => {
    expect(isAdmissibleWarning({ pluginId: 'openclaw:a', code: 'PLUGIN_INSTALL_FAILED' }, selections)).toBe(true);
    expect(isAdmissibleWarning({ pluginId: 'openclaw:b', code: 'PLUGIN_AUTH_REQUIRED' }, selections)).toBe(true);
  });

  it('refuses a plugin outside the selections or a code outside the vocabulary', () => {
    expect(isAdmissibleWarning({ pluginId: 'openclaw:z', code: 'PLUGIN_INSTALL_FAILED' }, selections)).toBe(false);
    expect(isAdmissibleWarning({ pluginId: 'openclaw:a', code: 'PLUGIN_EXPLODED' }, selections)).toBe(false);
    expect(isAdmissibleWarning({ pluginId: 'openclaw:a', code: 'plugin_install_failed' }, selections)).toBe(false);
  });

  it('keeps admissible warnings once each, in order, without extra fields', () => {
    const reported = [
      { pluginId: 'openclaw:b', code: 'PLUGIN_AUTH_REQUIRED', message: 'extra' },
      { pluginId: 'openclaw:z', code: 'PLUGIN_INSTALL_FAILED' },
      { pluginId: 'openclaw:a', code: 'PLUGIN_INSTALL_FAILED' },
      { pluginId: 'openclaw:b', code: 'PLUGIN_AUTH_REQUIRED' },
      { pluginId: 'openclaw:a', code: 'NOPE' },
      { pluginId: 'openclaw:a', code: 'PLUGIN_AUTH_REQUIRED' },
    ];
    expect(admitPluginWarnings(reported, selections)).toEqual([
      { pluginId: 'openclaw:b', code: 'PLUGIN_AUTH_REQUIRED' },
      { pluginId: 'openclaw:a', code: 'PLUGIN_INSTALL_FAILED' },
      { pluginId: 'openclaw:a', code: 'PLUGIN_AUTH_REQUIRED' },
    ]);
  });

  it('admits nothing when nothing is selected', () => {
    expect(admitPluginWarnings([{ pluginId: 'openclaw:a', code: 'PLUGIN_INSTALL_FAILED' }], new Set())).toEqual([]);
  });
});
