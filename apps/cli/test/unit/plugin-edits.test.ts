import { describe, expect, it } from 'vitest';
import { applyPluginEdits } from '../../src/agents/plugin-edits.ts';

const base = { 'openclaw:a': { enabled: true, tools: { t1: { enabled: false, approval: 'none' as const } } }, 'openclaw:b': { enabled: false } };

describe('occ agents edit: plugin map edits', () => {
  it('adds a new selection enabled, toggles named ones, and keeps every other field', () => {
    const next = applyPluginEdits(base, { plugins: ['openclaw:b', 'openclaw:c'], enable: true, tools: [], remove: [] });
    expect(next).toEqual({ ...base, 'openclaw:b': { enabled: true }, 'openclaw:c': { enabled: true } });
    expect(base['openclaw:b'].enabled).toBe(false); // the input is not changed
  });

  it('sets tool overrides (merging with an existing override) and the tool default on one plugin', () => {
    const next = applyPluginEdits(base, { plugins: ['openclaw:a'], tools: ['t1=on', 'ns.t2=off'], toolDefault: 'off', remove: [] });
    expect(next['openclaw:a']).toEqual({ enabled: true, toolDefaults: { enabled: false }, tools: { t1: { enabled: true, approval: 'none' }, 'ns.t2': { enabled: false } } });
  });

  it('removes selections; refuses tools for several plugins, bad values and unknown removals', () => {
    expect(applyPluginEdits(base, { plugins: [], tools: [], remove: ['openclaw:a'] })).toEqual({ 'openclaw:b': { enabled: false } });
    expect(() => applyPluginEdits(base, { plugins: ['openclaw:a', 'openclaw:b'], tools: ['t=off'], remove: [] })).toThrow('apply to one plugin');
    expect(() => applyPluginEdits(base, { plugins: ['openclaw:a'], tools: ['t=maybe'], remove: [] })).toThrow('must be on or off');
    expect(() => applyPluginEdits(base, { plugins: ['openclaw:a'], tools: ['=off'], remove: [] })).toThrow('NAME=on|off');
    expect(() => applyPluginEdits(base, { plugins: [], tools: [], remove: ['openclaw:zzz'] })).toThrow('no plugin selection');
  });
});
