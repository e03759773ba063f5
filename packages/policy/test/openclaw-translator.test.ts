import { describe, expect, it } from 'vitest';
import type { PluginMap, PolicyViolation } from '@occ/contracts';
import {
  findOpenClawConflicts,
  OpenClawPolicyError,
  planOpenClawRuntime,
  translateOpenClawPolicy,
  verifyEffectiveConfig,
  type OpenClawCatalog,
  type OpenClawCatalogPlugin,
  type OpenClawConfig,
  type OpenClawRuntimePlan,
} from '../src/index.ts';

const RUNTIME = '2026.9.5';

type Source = OpenClawCatalogPlugin['source'];

function plugin(id: string, pluginId: string, tools: string[] | null, source: Source = 'bundled'): OpenClawCatalogPlugin {
  return {
    id,
    pluginId,
    name: pluginId,
    description: `The ${pluginId} plugin.`,
    source,
    package: source === 'npm' ? id : 'openclaw',
    version: source === 'npm' ? '1.2.3' : RUNTIME,
    integrity: `sha512-${pluginId}`,
    tools,
  };
}

const catalog: OpenClawCatalog = {
  runtime: { package: 'openclaw', version: RUNTIME, integrity: 'sha512-runtime' },
  plugins: [
    plugin('@acme/diffs', 'diffs', ['acme_diff'], 'npm'),
    plugin('@openclaw/nostr', 'nostr', ['nostr_post', 'nostr_read'], 'npm'),
    plugin('browser', 'browser', ['browser']),
    plugin('diffs', 'diffs', ['diffs', 'diffs/apply']),
    plugin('mystery', 'mystery', null, 'npm'),
    plugin('shadow', 'shadow', ['Browser']),
  ],
};

// These cases are about the selected plugins; what happens to unselected ones (the default
// `disable`) has its own file, openclaw-unselected-plugins.test.ts.
function translate(selections: PluginMap, baseConfig: OpenClawConfig = {}, failures: string[] = []) {
  return translateOpenClawPolicy({ catalog, selections, baseConfig, failures: new Set(failures), unselectedPlugins: 'keep' });
}

function plan(selections: PluginMap): OpenClawRuntimePlan {
  const result = planOpenClawRuntime(catalog, selections);
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.plan;
}

function violationsOf(run: () => unknown): PolicyViolation[] {
  try {
    run();
  } catch (error) {
    if (error instanceof OpenClawPolicyError) return error.violations;
    throw error;
  }
  throw new Error('expected an OpenClawPolicyError');
}

const tools = (config: OpenClawConfig) => config.tools as Record<string, unknown> | undefined;

describe('planOpenClawRuntime', () => {
  it('[N-1] resolves every selection through the catalog and installs only npm-distributed plugins, in selection order', () => {
    const result = plan({
      'openclaw:mystery': { enabled: false },
      browser: { enabled: true },
      '@openclaw/nostr': { enabled: true, tools: { nostr_post: { enabled: false } } },
    });
    expect(result.plugins.map(({ selectionKey, pluginId }) => [selectionKey, pluginId])).toEqual([
      ['openclaw:mystery', 'mystery'],
      ['browser', 'browser'],
      ['@openclaw/nostr', 'nostr'],
    ]);
    expect(result.installs).toEqual([
      {
        selectionKey: 'openclaw:mystery',
        pluginId: 'mystery',
        package: 'mystery',
        version: '1.2.3',
        integrity: 'sha512-mystery',
      },
      {
        selectionKey: '@openclaw/nostr',
        pluginId: 'nostr',
        package: '@openclaw/nostr',
        version: '1.2.3',
        integrity: 'sha512-nostr',
      },
    ]);
    expect([...result.toolOwners]).toEqual([
      ['nostr_post', '@openclaw/nostr'],
      ['nostr_read', '@openclaw/nostr'],
      ['browser', 'browser'],
    ]);
  });

  it.each<[string, PluginMap, Partial<PolicyViolation>[]]>([
    ['a plugin the catalog lacks', { '@nobody/x': { enabled: true } }, [{ path: '/plugins/@nobody~1x', code: 'UNSUPPORTED_VALUE' }]],
    [
      'a tool the plugin does not register (pointer-escaped)',
      { diffs: { enabled: true, tools: { 'diffs/apply': { enabled: false }, 'x/y': { enabled: false } } } },
      [{ path: '/plugins/diffs/tools/x~1y', code: 'INVALID_VALUE' }],
    ],
    [
      'a tool policy on a plugin whose tools are unknown',
      { mystery: { enabled: true, tools: { anything: { approval: 'none' } } } },
      [{ path: '/plugins/mystery/tools', code: 'INVALID_COMBINATION' }],
    ],
    ['two keys naming the same OpenClaw plugin', { diffs: { enabled: true }, '@acme/diffs': { enabled: false } }, [{ path: '/plugins/diffs', code: 'DUPLICATE_PLUGIN' }]],
    [
      'the same key with and without the prefix, reported once',
      { 'openclaw:diffs': { enabled: true }, diffs: { enabled: true } },
      [{ path: '/plugins/openclaw:diffs', code: 'DUPLICATE_PLUGIN' }],
    ],
    [
      'two enabled plugins registering the same tool name (case-insensitively)',
      { shadow: { enabled: true }, browser: { enabled: true } },
      [{ path: '/plugins/shadow', code: 'INVALID_COMBINATION' }],
    ],
    [
      'an approval mode the driver cannot express (the static rules run too)',
      { diffs: { enabled: true, toolDefaults: { approval: 'all_actions' } } },
      [{ path: '/plugins/diffs/toolDefaults/approval', code: 'UNSUPPORTED_VALUE' }],
    ],
    ['an invalid key, reported once', { Browser: { enabled: true } }, [{ path: '/plugins/Browser', code: 'INVALID_VALUE' }]],
  ])('[N-1] refuses %s', (_name, selections, expected) => {
    const result = planOpenClawRuntime(catalog, selections);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.violations).toEqual(expected.map((found) => expect.objectContaining(found)));
  });

  it('[N-1] accepts a shared tool name when one of the owners is disabled, and toolDefaults on unknown tools', () => {
    expect(planOpenClawRuntime(catalog, { shadow: { enabled: false }, browser: { enabled: true } }).ok).toBe(true);
    expect(planOpenClawRuntime(catalog, { mystery: { enabled: true, toolDefaults: { enabled: false } } }).ok).toBe(true);
  });
});

describe('translateOpenClawPolicy: grants', () => {
  it.each<[string, OpenClawConfig, Record<string, unknown>]>([
    ['no tools section: grants go into alsoAllow', {}, { alsoAllow: ['browser', 'nostr'] }],
    ['an empty allow stays and grants go into alsoAllow', { tools: { allow: [] } }, { allow: [], alsoAllow: ['browser', 'nostr'] }],
    ['a non-empty allow takes the grants, in base order', { tools: { allow: ['exec', 'nostr', 'read'] } }, { allow: ['exec', 'nostr', 'read', 'browser'] }],
    [
      'an existing alsoAllow keeps its order, the profile is kept',
      { tools: { profile: 'coding', alsoAllow: ['gateway', 'browser'] } },
      { profile: 'coding', alsoAllow: ['gateway', 'browser', 'nostr'] },
    ],
  ])('[N-2] %s', (_name, base, expected) => {
    const { config, overlay } = translate({ browser: { enabled: true }, '@openclaw/nostr': { enabled: true } }, base);
    expect(tools(config)).toEqual(expected);
    expect(verifyEffectiveConfig(config, overlay)).toEqual([]);
  });

  it('[N-2] [N-4] keeps operator denies, other tool settings and the rest of the configuration', () => {
    const base = {
      gateway: { port: 18789 },
      tools: { profile: 'full', deny: ['exec', 'NOSTR_POST'], exec: { host: 'sandbox' } },
      plugins: { entries: { other: { enabled: true, config: { a: 1 } } } },
    };
    const { config } = translate({ '@openclaw/nostr': { enabled: true, tools: { nostr_read: { enabled: false } } } }, base);
    expect(config).toEqual({
      gateway: { port: 18789 },
      tools: { profile: 'full', deny: ['exec', 'NOSTR_POST', 'nostr_read'], exec: { host: 'sandbox' }, alsoAllow: ['nostr'] },
      plugins: { entries: { other: { enabled: true, config: { a: 1 } }, nostr: { enabled: true } } },
    });
  });

  it('[N-4] an operator deny of a tool the policy enables prevails', () => {
    const selections: PluginMap = { '@openclaw/nostr': { enabled: true, tools: { nostr_post: { enabled: true } } } };
    const { config } = translate(selections, { tools: { deny: ['nostr_post'] } });
    expect(tools(config)).toEqual({ deny: ['nostr_post'], alsoAllow: ['nostr'] });
  });
});

describe('translateOpenClawPolicy: tool enablement', () => {
  it.each<[string, PluginMap[string], string[]]>([
    ['nothing said: the native default (enabled)', { enabled: true }, []],
    ['toolDefaults off', { enabled: true, toolDefaults: { enabled: false } }, ['nostr_post', 'nostr_read']],
    ['a tool override on beats toolDefaults off', { enabled: true, toolDefaults: { enabled: false }, tools: { nostr_read: { enabled: true } } }, ['nostr_post']],
    ['a tool override off beats toolDefaults on', { enabled: true, toolDefaults: { enabled: true }, tools: { nostr_read: { enabled: false } } }, ['nostr_read']],
    [
      'a tool policy without enabled falls through to toolDefaults',
      { enabled: true, toolDefaults: { enabled: false }, tools: { nostr_read: { approval: 'none' } } },
      ['nostr_post', 'nostr_read'],
    ],
  ])('[N-3] %s', (_name, selection, denied) => {
    const { config } = translate({ '@openclaw/nostr': selection });
    expect(tools(config)?.deny ?? []).toEqual(denied);
  });

  it('[N-3] a plugin with every tool disabled gets named denies and no grant', () => {
    const { config } = translate({
      '@openclaw/nostr': { enabled: true, toolDefaults: { enabled: false } },
      browser: { enabled: true },
    });
    expect(tools(config)).toEqual({ alsoAllow: ['browser'], deny: ['nostr_post', 'nostr_read'] });
    expect(config.plugins).toEqual({ entries: { nostr: { enabled: true }, browser: { enabled: true } } });
  });

  it('[N-3] a plugin with unknown tools and toolDefaults off is denied by its id', () => {
    const { config } = translate({ mystery: { enabled: true, toolDefaults: { enabled: false } } });
    expect(tools(config)).toEqual({ deny: ['mystery'] });
  });

  it('[N-4] the plugin master disable beats every tool override', () => {
    const { config, overlay } = translate(
      { '@openclaw/nostr': { enabled: false, toolDefaults: { enabled: true }, tools: { nostr_post: { enabled: true } } } },
      { tools: { alsoAllow: ['nostr', 'gateway'] } },
    );
    expect(config).toEqual({ tools: { alsoAllow: ['gateway'] }, plugins: { entries: { nostr: { enabled: false } } } });
    expect(overlay).toEqual({ plugins: { entries: { nostr: { enabled: false } } } });
  });

  it('[N-4] provider_default and none add no review step', () => {
    const plain = translate({ diffs: { enabled: true, tools: { diffs: { enabled: false } } } });
    for (const approval of ['provider_default', 'none'] as const) {
      const withApproval = translate({
        diffs: {
          enabled: true,
          toolDefaults: { approval },
          tools: { diffs: { enabled: false, approval }, 'diffs/apply': { approval } },
        },
      });
      expect(withApproval.config).toEqual(plain.config);
      expect(withApproval.overlay).toEqual(plain.overlay);
    }
    expect(Object.keys(plain.config)).toEqual(['plugins', 'tools']);
  });
});

describe('translateOpenClawPolicy: install failures', () => {
  it('[N-9] a confirmed install rejection disables the selection and withdraws its grant', () => {
    const selections: PluginMap = {
      '@openclaw/nostr': { enabled: true, tools: { nostr_post: { enabled: false } } },
      browser: { enabled: true },
    };
    const { config, overlay } = translate(selections, { tools: { alsoAllow: ['NOSTR', 'gateway'] } }, ['@openclaw/nostr']);
    expect(config).toEqual({
      tools: { alsoAllow: ['gateway', 'browser'] },
      plugins: { entries: { nostr: { enabled: false }, browser: { enabled: true } } },
    });
    expect(overlay).toEqual({
      plugins: { entries: { nostr: { enabled: false }, browser: { enabled: true } } },
      tools: { alsoAllow: ['browser'] },
    });
  });

  it('[N-9] a failed plugin leaves a non-empty allow, which keeps the other grants', () => {
    const selections: PluginMap = { '@openclaw/nostr': { enabled: true }, browser: { enabled: true } };
    const { config } = translate(selections, { tools: { allow: ['exec', 'nostr'] } }, ['@openclaw/nostr']);
    expect(tools(config)).toEqual({ allow: ['exec', 'browser'] });
  });

  it('[N-9] [N-8] refuses to empty a non-empty allow (that would allow every tool)', () => {
    const run = () => translate({ '@openclaw/nostr': { enabled: true } }, { tools: { allow: ['nostr'] } }, ['@openclaw/nostr']);
    expect(violationsOf(run)).toEqual([expect.objectContaining({ path: '/plugins/@openclaw~1nostr/enabled', code: 'INVALID_COMBINATION' })]);
  });
});

describe('translateOpenClawPolicy: conflicts fail before any install', () => {
  const nostr: PluginMap = { '@openclaw/nostr': { enabled: true } };
  it.each<[string, OpenClawConfig, string]>([
    ['plugins.enabled:false', { plugins: { enabled: false } }, '/plugins/@openclaw~1nostr/enabled'],
    ['a plugins.deny match, trimmed and lowercased', { plugins: { deny: [' Nostr '] } }, '/plugins/@openclaw~1nostr/enabled'],
    ['a non-empty plugins.allow without it', { plugins: { allow: ['browser'] } }, '/plugins/@openclaw~1nostr/enabled'],
    ['a differing plugins.entries value', { plugins: { entries: { nostr: { enabled: true, config: {} } } } }, '/plugins/@openclaw~1nostr'],
    ['a tools.deny on its id blocking tools the policy allows', { tools: { deny: ['NOSTR'] } }, '/plugins/@openclaw~1nostr'],
  ])('[N-1] [N-8] %s', (_name, base, path) => {
    const expected = [expect.objectContaining({ path, code: 'INVALID_COMBINATION' })];
    expect(violationsOf(() => translate(nostr, base))).toEqual(expected);
    expect(findOpenClawConflicts(plan(nostr), base)).toEqual([expect.objectContaining({ path })]);
  });

  it.each<[string, PluginMap, OpenClawConfig]>([
    ['the managed {enabled} entry (re-apply)', nostr, { plugins: { entries: { nostr: { enabled: false } } } }],
    ['a plugins.allow that includes it', nostr, { plugins: { allow: ['browser', 'NOSTR'] } }],
    ['global switches against a disabled selection', { '@openclaw/nostr': { enabled: false } }, { plugins: { enabled: false, deny: ['nostr'] } }],
    [
      'a tools.deny on its id when the policy disables every tool anyway',
      { '@openclaw/nostr': { enabled: true, toolDefaults: { enabled: false } } },
      { tools: { deny: ['nostr'] } },
    ],
  ])('[N-1] tolerates %s', (_name, selections, base) => {
    expect(() => translate(selections, base)).not.toThrow();
  });

  it('[N-1] a failed selection no longer conflicts with plugins.enabled:false', () => {
    const run = () => translate({ '@openclaw/nostr': { enabled: true } }, { plugins: { enabled: false } }, ['@openclaw/nostr']);
    expect(run).not.toThrow();
  });

  it.each<[string, OpenClawConfig]>([
    ['tools.deny', { tools: { deny: 'exec' } }],
    ['tools', { tools: [] }],
    ['plugins.entries', { plugins: { entries: [] } }],
    ['plugins.enabled', { plugins: { enabled: 'no' } }],
  ])('reports a malformed base %s at the document root', (field, base) => {
    const violations = violationsOf(() => translate({ browser: { enabled: true } }, base));
    expect(violations).toEqual([{ path: '', code: 'INVALID_VALUE', message: expect.stringContaining(field) }]);
  });

  it('[N-1] throws the plan violations before looking at the base', () => {
    expect(violationsOf(() => translate({ ghost: { enabled: true } }, { tools: 1 }))).toEqual([expect.objectContaining({ path: '/plugins/ghost', code: 'UNSUPPORTED_VALUE' })]);
  });
});

describe('translateOpenClawPolicy: purity', () => {
  it('never mutates the base and returns a new object', () => {
    const base = { tools: { allow: ['exec'], deny: ['read'] }, plugins: { entries: { nostr: { enabled: false } } } };
    const snapshot = structuredClone(base);
    const selections: PluginMap = {
      '@openclaw/nostr': { enabled: true, toolDefaults: { enabled: false }, tools: { nostr_read: { enabled: true } } },
    };
    const { config } = translate(selections, deepFreeze(base));
    expect(base).toEqual(snapshot);
    expect(config).not.toBe(base);
    expect(config.tools).not.toBe(base.tools);
    expect(config).toEqual({
      tools: { allow: ['exec', 'nostr'], deny: ['read', 'nostr_post'] },
      plugins: { entries: { nostr: { enabled: true } } },
    });
  });

  it('keeps a plugin id such as __proto__ an ordinary key', () => {
    const odd: OpenClawCatalog = { ...catalog, plugins: [plugin('odd', '__proto__', ['odd_tool'])] };
    const selections: PluginMap = { odd: { enabled: true } };
    const { config, overlay } = translateOpenClawPolicy({ catalog: odd, selections, baseConfig: {} });
    const entries = (config.plugins as Record<string, unknown>).entries as Record<string, unknown>;
    expect(Object.hasOwn(entries, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(entries)).toBe(Object.prototype);
    expect(verifyEffectiveConfig(JSON.parse(JSON.stringify(config)), overlay)).toEqual([]);
  });
});

describe('verifyEffectiveConfig', () => {
  const overlay: OpenClawConfig = {
    plugins: { entries: { nostr: { enabled: true }, 'a/b': { enabled: false } } },
    tools: { profile: 'coding', alsoAllow: ['nostr'], deny: ['exec', 'nostr_post'] },
  };

  it('[N-6] accepts an effective config that contains the overlay, lists as subsets, extra keys allowed', () => {
    const effective = {
      gateway: { port: 1 },
      plugins: {
        entries: { nostr: { enabled: true, installPath: '/x' }, 'a/b': { enabled: false }, other: { enabled: true } },
      },
      tools: { profile: 'coding', alsoAllow: ['gateway', 'nostr'], deny: ['nostr_post', 'read', 'exec'] },
    };
    expect(verifyEffectiveConfig(effective, overlay)).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['nothing read back', {}, ['/plugins', '/tools']],
    ['a missing grant and a lost deny', { ...structuredClone(overlay), tools: { profile: 'coding', alsoAllow: [], deny: ['exec'] } }, ['/tools/alsoAllow', '/tools/deny']],
    [
      'a flipped entry and a changed profile (exact)',
      {
        plugins: { entries: { nostr: { enabled: true }, 'a/b': { enabled: true } } },
        tools: { profile: 'full', alsoAllow: ['nostr'], deny: ['exec', 'nostr_post'] },
      },
      ['/plugins/entries/a~1b/enabled', '/tools/profile'],
    ],
    ['a list that is not a list', { ...structuredClone(overlay), tools: { profile: 'coding', alsoAllow: 'nostr', deny: ['exec', 'nostr_post'] } }, ['/tools/alsoAllow']],
    ['not an object', null, ['']],
  ])('[N-6] reports %s', (_name, effective, mismatches) => {
    expect(verifyEffectiveConfig(effective, overlay)).toEqual(mismatches);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
