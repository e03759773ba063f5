import { describe, expect, it } from 'vitest';
import type { PluginMap, PluginSelection } from '@occ/contracts';
import {
  codexAppConfigEdits,
  codexAppToolSettings,
  codexInstallPlan,
  codexKeyPath,
  CodexPolicyError,
  codexRuntimeArtifact,
  codexToolInventoryNeeded,
  verifyCodexAppConfiguration,
  verifyCodexReviewerConfiguration,
  type CodexConfig,
  type CodexConfigRequirements,
  type CodexInstallPlan,
  type CodexMcpServerStatus,
  type CodexPluginDetail,
  type CodexRuntimeArtifact,
} from '../src/index.ts';
import { applyEdits, codexApps, detail, mergeLayers, parseKeyPath, tool } from './codex-support.ts';

const LINEAR = 'linear@openai-curated-remote';
const GMAIL = 'gmail@openai-curated-remote';
const DRIVE = 'drive@openai-curated-remote';

const DETAILS = new Map<string, CodexPluginDetail>([
  [`codex:${LINEAR}`, detail(LINEAR, ['connector_linear'])],
  [LINEAR, detail(LINEAR, ['connector_linear'])],
  [GMAIL, detail(GMAIL, ['connector_gmail'])],
  [DRIVE, detail(DRIVE, ['connector_drive', 'connector_docs'])],
]);

function plan(selections: PluginMap, details: ReadonlyMap<string, CodexPluginDetail> = DETAILS): CodexInstallPlan {
  const result = codexInstallPlan({ selections, details });
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.plan;
}

function planViolations(selections: PluginMap, details: ReadonlyMap<string, CodexPluginDetail> = DETAILS) {
  const result = codexInstallPlan({ selections, details });
  if (result.ok) throw new Error('expected violations');
  return result.violations.map(({ path, code }) => ({ path, code }));
}

const INVENTORY: CodexMcpServerStatus[] = [
  { name: 'other', tools: {}, toolsError: null },
  codexApps([
    tool('linear_search_issues', 'connector_linear', { action: 'search', readOnly: true }),
    tool('linear_create_issue', 'connector_linear', { action: 'create' }),
    tool('linear_close_issue', 'connector_linear', { action: 'close' }),
    tool('gmail_send', 'connector_gmail', { action: 'send' }),
    tool('orphan_tool', null),
  ]),
];

function bind(selections: PluginMap, inventory: CodexMcpServerStatus[] = INVENTORY, failures: string[] = []) {
  return codexAppToolSettings({ plan: plan(selections), inventory, failures: new Set(failures) });
}

function artifactOf(selections: PluginMap, failures: string[] = [], inventory = INVENTORY): CodexRuntimeArtifact {
  const planned = plan(selections);
  const bound = codexAppToolSettings({ plan: planned, inventory, failures: new Set(failures) });
  if (!bound.ok) throw new Error(JSON.stringify(bound.violations));
  return codexRuntimeArtifact({ plan: planned, toolSettings: bound.toolSettings, failures: new Set(failures) });
}

/** The merged configuration after the edits land in the user layer above `lower`. */
function applied(artifact: CodexRuntimeArtifact, lower: Record<string, unknown> = {}): CodexConfig {
  const edits = codexAppConfigEdits({ artifact, effective: lower });
  return mergeLayers(lower, applyEdits({}, edits)) as CodexConfig;
}

const violationsAt = (found: ReadonlyArray<{ path: string; code: string }>) => found.map(({ path, code }) => ({ path, code }));

describe('codexInstallPlan', () => {
  it('[X-5] [X-6] [X-14] resolves each selection to its identity, version and concrete apps, sorted by key', () => {
    const details = new Map(DETAILS);
    details.set(
      GMAIL,
      detail(GMAIL, ['connector_gmail', 'connector_gmail'], {
        summary: { id: GMAIL, name: 'gmail', version: null, localVersion: '0.9.0' },
        appTemplates: [{ id: 'template_app' }],
        skills: [{ name: 'triage' }],
        scheduledTasks: [],
      }),
    );
    const result = plan({ [GMAIL]: { enabled: true }, [`codex:${LINEAR}`]: { enabled: true }, [DRIVE]: { enabled: false } }, details);
    expect(result.rows.map(({ selection: _selection, ...row }) => row)).toEqual([
      {
        selectionKey: `codex:${LINEAR}`,
        nativeId: LINEAR,
        pluginName: 'linear',
        marketplaceName: 'openai-curated-remote',
        version: '1.0.0',
        apps: ['connector_linear'],
        enabled: true,
      },
      {
        selectionKey: DRIVE,
        nativeId: DRIVE,
        pluginName: 'drive',
        marketplaceName: 'openai-curated-remote',
        version: '1.0.0',
        apps: ['connector_drive', 'connector_docs'],
        enabled: false,
      },
      { selectionKey: GMAIL, nativeId: GMAIL, pluginName: 'gmail', marketplaceName: 'openai-curated-remote', version: '0.9.0', apps: ['connector_gmail'], enabled: true },
    ]);
  });

  it('[X-14] a disabled selection needs no detail: it is neither installed nor given apps', () => {
    const result = plan({ [LINEAR]: { enabled: false } }, new Map());
    expect(result.rows).toEqual([expect.objectContaining({ selectionKey: LINEAR, version: null, apps: [], enabled: false })]);
  });

  const base = (overrides: Partial<CodexPluginDetail>) => new Map([...DETAILS, [LINEAR, detail(LINEAR, ['connector_linear'], overrides)]]);
  const cases: Array<{ name: string; selections: PluginMap; details?: Map<string, CodexPluginDetail>; expected: object[] }> = [
    {
      name: '[X-6] the static policy rules run again (an unknown driverPolicy field)',
      selections: { [LINEAR]: { enabled: true, driverPolicy: { other: true } } },
      expected: [{ path: `/plugins/${LINEAR}/driverPolicy/other`, code: 'UNSUPPORTED_FIELD' }],
    },
    {
      name: '[X-6] an enabled selection without a detail',
      selections: { [LINEAR]: { enabled: true } },
      details: new Map(),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'INVALID_VALUE' }],
    },
    {
      name: '[X-14] a detail answering for another plugin',
      selections: { [LINEAR]: { enabled: true } },
      details: new Map([[LINEAR, detail(GMAIL, ['connector_gmail'])]]),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'INVALID_VALUE' }],
    },
    {
      name: '[X-14] no version at all',
      selections: { [LINEAR]: { enabled: true } },
      details: base({ summary: { id: LINEAR, name: 'linear', version: null, localVersion: null } }),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'INVALID_VALUE' }],
    },
    {
      name: '[X-6] hooks are an unsupported component',
      selections: { [LINEAR]: { enabled: true } },
      details: base({ hooks: [{ event: 'PreToolUse' }] }),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'UNSUPPORTED_VALUE' }],
    },
    {
      name: '[X-6] MCP servers are an unsupported component',
      selections: { [LINEAR]: { enabled: true } },
      details: base({ mcpServers: ['linear-mcp'] }),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'UNSUPPORTED_VALUE' }],
    },
    {
      name: '[X-6] scheduled tasks are an unsupported component',
      selections: { [LINEAR]: { enabled: true } },
      details: base({ scheduledTasks: [{ id: 'nightly' }] }),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'UNSUPPORTED_VALUE' }],
    },
    {
      name: '[X-6] an app with the reserved id _default',
      selections: { [LINEAR]: { enabled: true } },
      details: base({ apps: [{ id: '_default', name: 'default' }] }),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'INVALID_VALUE' }],
    },
    {
      name: '[X-6] a shared app whose selections disagree on enablement',
      selections: { [GMAIL]: { enabled: false }, [LINEAR]: { enabled: true } },
      details: new Map([
        [GMAIL, detail(GMAIL, ['shared'])],
        [LINEAR, detail(LINEAR, ['shared'])],
      ]),
      expected: [{ path: `/plugins/${LINEAR}/enabled`, code: 'INVALID_COMBINATION' }],
    },
    {
      name: '[X-6] a shared app whose selections serialize to different policies',
      selections: { [GMAIL]: { enabled: true }, [LINEAR]: { enabled: true, toolDefaults: { approval: 'all_actions' } } },
      details: new Map([
        [GMAIL, detail(GMAIL, ['shared'])],
        [LINEAR, detail(LINEAR, ['shared'])],
      ]),
      expected: [{ path: `/plugins/${LINEAR}`, code: 'INVALID_COMBINATION' }],
    },
    {
      name: '[X-7] a tool policy naming one of the plugin’s skills (skills are account-wide)',
      selections: { [LINEAR]: { enabled: true, tools: { triage: { enabled: false } } } },
      details: base({ skills: [{ name: 'triage' }] }),
      expected: [{ path: `/plugins/${LINEAR}/tools/triage`, code: 'UNSUPPORTED_VALUE' }],
    },
    {
      name: '[X-7] a driverPolicy field that would restrict skills',
      selections: { [LINEAR]: { enabled: true, driverPolicy: { skills: { triage: false } } } },
      expected: [{ path: `/plugins/${LINEAR}/driverPolicy/skills`, code: 'UNSUPPORTED_FIELD' }],
    },
  ];
  for (const { name, selections, details, expected } of cases) {
    it(`refuses ${name}`, () => {
      expect(planViolations(selections, details)).toEqual(expected);
    });
  }

  it('[X-6] a shared app with one policy in both selections is fine; skills and an empty task list are allowed', () => {
    const shared = { enabled: true, toolDefaults: { approval: 'write_actions' as const } };
    const details = new Map([
      [GMAIL, detail(GMAIL, ['shared'], { skills: [{ name: 'compose' }], scheduledTasks: [] })],
      [LINEAR, detail(LINEAR, ['shared'])],
    ]);
    expect(plan({ [GMAIL]: shared, [LINEAR]: { ...shared } }, details).rows.map(({ apps }) => apps)).toEqual([['shared'], ['shared']]);
  });
});

describe('codexAppToolSettings', () => {
  it('[X-9] binds native names and both catalog aliases, and maps approvals onto the owning app', () => {
    const result = bind({
      [LINEAR]: {
        enabled: true,
        tools: {
          linear_search_issues: { approval: 'none' },
          'connector_linear/create': { enabled: false },
          'connector_linear/linear_close_issue': { approval: 'all_actions', enabled: true },
        },
      },
      [GMAIL]: { enabled: true, tools: { 'connector_gmail/send': { approval: 'write_actions' } } },
    });
    expect(result).toEqual({
      ok: true,
      toolSettings: new Map([
        ['connector_gmail', { gmail_send: { approval_mode: 'writes' } }],
        [
          'connector_linear',
          {
            linear_close_issue: { enabled: true, approval_mode: 'prompt' },
            linear_create_issue: { enabled: false },
            linear_search_issues: { approval_mode: 'approve' },
          },
        ],
      ]),
    });
  });

  it('[X-9] needs no inventory when no enabled, installed selection names a tool', () => {
    const selections: PluginMap = { [LINEAR]: { enabled: true }, [GMAIL]: { enabled: true, tools: { nope: { enabled: false } } } };
    expect(codexToolInventoryNeeded(plan(selections))).toBe(true);
    expect(codexToolInventoryNeeded(plan(selections), new Set([GMAIL]))).toBe(false);
    expect(bind(selections, [], [GMAIL])).toEqual({ ok: true, toolSettings: new Map() });
  });

  const only = (tools: PluginSelection['tools'], extra: Partial<PluginSelection> = {}): PluginMap => ({
    [LINEAR]: { enabled: true, tools, ...extra },
    [GMAIL]: { enabled: true },
  });
  const ambiguous = codexApps([tool('linear_create_issue', 'connector_linear', { action: 'create' }), tool('linear_create_project', 'connector_linear', { action: 'create' })]);
  const cases: Array<{ name: string; selections: PluginMap; inventory?: CodexMcpServerStatus[]; expected: object[] }> = [
    { name: 'no codex_apps server', selections: only({ x: { enabled: false } }), inventory: [INVENTORY[0]!], expected: [{ path: '', code: 'INVALID_VALUE' }] },
    { name: 'two codex_apps servers', selections: only({ x: { enabled: false } }), inventory: [INVENTORY[1]!, INVENTORY[1]!], expected: [{ path: '', code: 'INVALID_VALUE' }] },
    { name: 'a codex_apps tools error', selections: only({ x: { enabled: false } }), inventory: [codexApps([], 'auth expired')], expected: [{ path: '', code: 'INVALID_VALUE' }] },
    {
      name: 'a tool listed under another name',
      selections: only({ x: { enabled: false } }),
      inventory: [{ name: 'codex_apps', tools: { alias: tool('real', 'connector_linear') }, toolsError: null }],
      expected: [{ path: '', code: 'INVALID_VALUE' }],
    },
    { name: 'an unknown id', selections: only({ linear_delete: { enabled: false } }), expected: [{ path: `/plugins/${LINEAR}/tools/linear_delete`, code: 'INVALID_VALUE' }] },
    {
      name: 'a tool of another selection’s app',
      selections: only({ gmail_send: { enabled: false } }),
      expected: [{ path: `/plugins/${LINEAR}/tools/gmail_send`, code: 'INVALID_COMBINATION' }],
    },
    { name: 'a tool of no app', selections: only({ orphan_tool: { enabled: false } }), expected: [{ path: `/plugins/${LINEAR}/tools/orphan_tool`, code: 'INVALID_COMBINATION' }] },
    {
      name: 'an alias naming two tools',
      selections: only({ 'connector_linear/create': { enabled: false } }),
      inventory: [ambiguous],
      expected: [{ path: `/plugins/${LINEAR}/tools/connector_linear~1create`, code: 'INVALID_VALUE' }],
    },
    {
      name: 'two ids naming one tool',
      selections: only({ linear_create_issue: { enabled: false }, 'connector_linear/create': { enabled: false } }),
      expected: [{ path: `/plugins/${LINEAR}/tools/linear_create_issue`, code: 'DUPLICATE_VALUE' }],
    },
    {
      name: '[X-18] enabling a possibly destructive tool while destructive actions are off',
      selections: only({ 'connector_linear/create': { enabled: true } }, { driverPolicy: { destructiveEnabled: false } }),
      expected: [{ path: `/plugins/${LINEAR}/tools/connector_linear~1create/enabled`, code: 'INVALID_COMBINATION' }],
    },
  ];
  for (const { name, selections, inventory, expected } of cases) {
    it(`[X-9] fails startup on ${name}`, () => {
      const result = bind(selections, inventory);
      expect(result.ok ? [] : violationsAt(result.violations)).toEqual(expected);
    });
  }

  it('[X-18] a read-only tool may be enabled while destructive actions are off', () => {
    const result = bind(only({ linear_search_issues: { enabled: true } }, { driverPolicy: { destructiveEnabled: false } }));
    expect(result.ok).toBe(true);
  });
});

describe('codexRuntimeArtifact', () => {
  it('[X-10] maps approval modes and reviewers onto Codex’s names', () => {
    const approvals = { provider_default: 'auto', all_actions: 'prompt', write_actions: 'writes', none: 'approve' } as const;
    for (const [approval, native] of Object.entries(approvals)) {
      const artifact = artifactOf({ [LINEAR]: { enabled: true, toolDefaults: { approval: approval as keyof typeof approvals } } });
      expect(artifact.apps.connector_linear).toMatchObject({ default_tools_approval_mode: native });
    }
    expect(artifactOf({ [LINEAR]: { enabled: true, toolDefaults: { reviewer: 'human' } } }).apps.connector_linear).toMatchObject({ approvals_reviewer: 'user' });
    expect(artifactOf({ [LINEAR]: { enabled: true, toolDefaults: { reviewer: 'auto' } } }).apps.connector_linear).toMatchObject({ approvals_reviewer: 'auto_review' });
  });

  it('[X-2] [X-5] [X-10] [X-12] writes concrete apps only, _default off, and leaves unspecified tool enablement unset', () => {
    const artifact = artifactOf({
      [LINEAR]: { enabled: true, tools: { linear_search_issues: { approval: 'all_actions' } } },
      [DRIVE]: { enabled: true, toolDefaults: { enabled: false, approval: 'write_actions' } },
    });
    expect(artifact.features).toEqual({ apps: true, plugins: true, remote_plugin: true });
    expect(artifact.defaultApp).toEqual({ enabled: false, open_world_enabled: false, destructive_enabled: false });
    expect(artifact.apps).toEqual({
      connector_drive: { enabled: true, default_tools_approval_mode: 'writes', default_tools_enabled: false, destructive_enabled: true, open_world_enabled: true },
      connector_docs: { enabled: true, default_tools_approval_mode: 'writes', default_tools_enabled: false, destructive_enabled: true, open_world_enabled: true },
      connector_linear: {
        enabled: true,
        default_tools_approval_mode: 'auto',
        destructive_enabled: true,
        open_world_enabled: true,
        tools: { linear_search_issues: { approval_mode: 'prompt' } },
      },
    });
  });

  it('[X-17] [X-18] destructiveEnabled:false turns the category off on the app and declines in the bridge', () => {
    const artifact = artifactOf({ [LINEAR]: { enabled: true, driverPolicy: { destructiveEnabled: false } } });
    expect(artifact.apps.connector_linear).toMatchObject({ destructive_enabled: false });
    expect(artifact.bridge.plugins.entries.codex.config.codexPlugins.plugins[LINEAR]).toMatchObject({ allow_destructive_actions: false });
  });

  it('[X-1] [G-1] the bridge has one entry per selection; a failed or disabled selection’s entry and apps are off', () => {
    const artifact = artifactOf({ [LINEAR]: { enabled: true }, [GMAIL]: { enabled: true }, [DRIVE]: { enabled: false } }, [GMAIL]);
    expect(artifact.bridge).toEqual({
      plugins: {
        entries: {
          codex: {
            enabled: true,
            config: {
              codexPlugins: {
                enabled: true,
                allow_all_plugins: false,
                plugins: {
                  [DRIVE]: { enabled: false, marketplaceName: 'openai-curated-remote', pluginName: 'drive', allow_destructive_actions: 'auto' },
                  [GMAIL]: { enabled: false, marketplaceName: 'openai-curated-remote', pluginName: 'gmail', allow_destructive_actions: 'auto' },
                  [LINEAR]: { enabled: true, marketplaceName: 'openai-curated-remote', pluginName: 'linear', allow_destructive_actions: 'auto' },
                },
              },
            },
          },
        },
      },
    });
    expect(artifact.apps.connector_gmail).toEqual({ enabled: false });
    expect(artifact.apps.connector_drive).toEqual({ enabled: false });
    expect(artifact.apps.connector_linear).toMatchObject({ enabled: true });
  });

  it('[G-1] an app shared by an installed and a failed selection stays enabled with the shared policy', () => {
    const details = new Map([
      [GMAIL, detail(GMAIL, ['shared'])],
      [LINEAR, detail(LINEAR, ['shared'])],
    ]);
    const planned = plan({ [GMAIL]: { enabled: true }, [LINEAR]: { enabled: true } }, details);
    for (const failed of [GMAIL, LINEAR]) {
      const artifact = codexRuntimeArtifact({ plan: planned, toolSettings: new Map(), failures: new Set([failed]) });
      expect(artifact.apps.shared).toMatchObject({ enabled: true });
    }
  });

  it('[X-1] with no selection or only disabled ones, features are off; the harness stays on and codexPlugins has no open door', () => {
    const empty = artifactOf({});
    expect(empty.features).toEqual({ apps: false, plugins: false, remote_plugin: false });
    expect(empty.apps).toEqual({});
    expect(empty.bridge.plugins.entries.codex).toEqual({
      enabled: true,
      config: { codexPlugins: { enabled: false, allow_all_plugins: false, plugins: {} } },
    });
    expect(artifactOf({ [LINEAR]: { enabled: false } }).features).toEqual({ apps: false, plugins: false, remote_plugin: false });
  });
});

describe('codexAppConfigEdits', () => {
  it('[X-11] [X-13] replaces features, apps._default and each app subtree; unselected apps only get enabled=false', () => {
    const artifact = artifactOf({ [LINEAR]: { enabled: true }, [GMAIL]: { enabled: true } }, [GMAIL]);
    const effective = { apps: { zeta: { enabled: true, default_tools_approval_mode: 'approve' }, 'x.y': { enabled: true }, _default: { enabled: true } } };
    const edits = codexAppConfigEdits({ artifact, effective });
    expect(edits.map(({ keyPath, value }) => [keyPath, value])).toEqual([
      ['features.apps', true],
      ['features.plugins', true],
      ['features.remote_plugin', true],
      ['apps._default', { enabled: false, open_world_enabled: false, destructive_enabled: false }],
      ['apps.connector_gmail', { enabled: false }],
      ['apps.connector_linear', { enabled: true, default_tools_approval_mode: 'auto', destructive_enabled: true, open_world_enabled: true }],
      ['apps."x.y".enabled', false],
      ['apps.zeta.enabled', false],
    ]);
    expect(new Set(edits.map(({ mergeStrategy }) => mergeStrategy))).toEqual(new Set(['replace']));
  });

  it('[X-11] materializes the requested enablement and approval onto inherited tools, and approval and reviewer onto links', () => {
    const artifact = artifactOf({
      [LINEAR]: { enabled: true, toolDefaults: { enabled: false, approval: 'all_actions', reviewer: 'human' }, tools: { linear_search_issues: { enabled: true } } },
    });
    const effective = {
      apps: {
        connector_linear: {
          enabled: true,
          tools: { linear_search_issues: { enabled: false, approval_mode: 'approve' }, legacy_tool: { enabled: true, approval_mode: 'approve' } },
          links: { acct_1: { approvals_reviewer: 'auto_review', default_tools_approval_mode: 'approve' } },
        },
      },
    };
    const edit = codexAppConfigEdits({ artifact, effective }).find(({ keyPath }) => keyPath === 'apps.connector_linear');
    expect(edit?.value).toEqual({
      enabled: true,
      default_tools_approval_mode: 'prompt',
      default_tools_enabled: false,
      approvals_reviewer: 'user',
      destructive_enabled: true,
      open_world_enabled: true,
      tools: {
        linear_search_issues: { enabled: true, approval_mode: 'prompt' },
        legacy_tool: { enabled: false, approval_mode: 'prompt' },
      },
      links: { acct_1: { default_tools_approval_mode: 'prompt', approvals_reviewer: 'user' } },
    });
  });

  it('[X-12] with no requested enablement an inherited tool gets the approval default only', () => {
    const artifact = artifactOf({ [LINEAR]: { enabled: true } });
    const effective = { apps: { connector_linear: { enabled: true, tools: { legacy_tool: { approval_mode: 'approve' } } } } };
    const edit = codexAppConfigEdits({ artifact, effective }).find(({ keyPath }) => keyPath === 'apps.connector_linear');
    expect((edit?.value as { tools: unknown } | undefined)?.tools).toEqual({ legacy_tool: { approval_mode: 'auto' } });
  });

  it('[X-13] key paths quote every segment that is not a bare TOML key, as the pinned Codex parses them', () => {
    for (const segments of [
      ['apps', '_default'],
      ['apps', 'a.b', 'tools', 'x y'],
      ['apps', 'q"b\\c'],
      ['apps', 'del\u007f', 'tab\t'],
    ]) {
      expect(parseKeyPath(codexKeyPath(segments))).toEqual(segments);
    }
    expect(codexKeyPath(['apps', 'a.b', 'enabled'])).toBe('apps."a.b".enabled');
    expect(codexKeyPath(['apps', 'del\u007f'])).toBe('apps."del\\u007F"');
  });

  it('refuses an effective configuration whose apps cannot be read', () => {
    const artifact = artifactOf({ [LINEAR]: { enabled: true } });
    expect(() => codexAppConfigEdits({ artifact, effective: { apps: { connector_linear: { tools: [] } } } })).toThrow(CodexPolicyError);
  });
});

describe('verifyCodexAppConfiguration', () => {
  const artifact = artifactOf(
    {
      [LINEAR]: { enabled: true, toolDefaults: { approval: 'write_actions' }, tools: { linear_create_issue: { enabled: false } } },
      [GMAIL]: { enabled: true },
    },
    [GMAIL],
  );
  const verify = (effective: CodexConfig) => violationsAt(verifyCodexAppConfiguration({ artifact, effective }));

  it('[X-15] [X-16] the configuration the edits produce over other layers passes, disabled apps keeping inherited fields', () => {
    const lower = {
      features: { apps: false },
      apps: {
        _default: { approvals_reviewer: 'user' },
        connector_gmail: { enabled: true, default_tools_approval_mode: 'approve', tools: { gmail_send: { enabled: true } } },
        unselected: { enabled: true, destructive_enabled: true },
        connector_linear: { tools: { legacy: { approval_mode: 'approve' } }, links: { acct: { default_tools_approval_mode: 'approve' } } },
      },
    };
    expect(verify(applied(artifact, lower))).toEqual([]);
  });

  it('[X-17] categories resolve app → _default → native true; equal explicit values and nulls pass', () => {
    const effective = applied(artifact);
    const apps = effective.apps as Record<string, Record<string, unknown>>;
    // Codex's readback spells every unset field null; an unset category inherits _default, then native true.
    expect(verify({ ...effective, apps: { ...apps, connector_linear: { ...apps.connector_linear, default_tools_enabled: null, approvals_reviewer: null } } })).toEqual([]);
    const inherited = { ...apps.connector_linear, destructive_enabled: null };
    expect(verify({ ...effective, apps: { ...apps, connector_linear: inherited } })).toEqual([{ path: '/apps/connector_linear/destructive_enabled', code: 'INVALID_VALUE' }]);
    expect(verify({ ...effective, apps: { ...apps, connector_linear: inherited, _default: { ...apps._default, destructive_enabled: true } } })).toEqual([
      { path: '/apps/_default/destructive_enabled', code: 'INVALID_VALUE' },
    ]);
    expect(verify({ ...effective, apps: { ...apps, connector_linear: inherited, _default: { enabled: false, open_world_enabled: false } } })).toEqual([
      { path: '/apps/_default/destructive_enabled', code: 'INVALID_VALUE' },
    ]);
  });

  const layered = (higher: Record<string, unknown>) => mergeLayers(applied(artifact), higher) as CodexConfig;
  const cases: Array<{ name: string; higher: Record<string, unknown>; expected: object[] }> = [
    { name: 'a feature turned off', higher: { features: { plugins: false } }, expected: [{ path: '/features/plugins', code: 'INVALID_VALUE' }] },
    { name: '_default enabled', higher: { apps: { _default: { enabled: true } } }, expected: [{ path: '/apps/_default/enabled', code: 'INVALID_VALUE' }] },
    { name: 'an unselected app enabled', higher: { apps: { stray: { enabled: true } } }, expected: [{ path: '/apps/stray/enabled', code: 'INVALID_VALUE' }] },
    {
      name: 'a failed selection’s app enabled',
      higher: { apps: { connector_gmail: { enabled: true } } },
      expected: [{ path: '/apps/connector_gmail/enabled', code: 'INVALID_VALUE' }],
    },
    { name: 'a selected app disabled', higher: { apps: { connector_linear: { enabled: false } } }, expected: [{ path: '/apps/connector_linear/enabled', code: 'INVALID_VALUE' }] },
    {
      name: 'a weaker approval default',
      higher: { apps: { connector_linear: { default_tools_approval_mode: 'approve' } } },
      expected: [
        { path: '/apps/connector_linear/default_tools_approval_mode', code: 'INVALID_VALUE' },
        { path: '/apps/connector_linear/tools/linear_create_issue/approval_mode', code: 'INVALID_VALUE' },
      ],
    },
    {
      name: 'a disabled tool enabled',
      higher: { apps: { connector_linear: { tools: { linear_create_issue: { enabled: true } } } } },
      expected: [{ path: '/apps/connector_linear/tools/linear_create_issue/enabled', code: 'INVALID_VALUE' }],
    },
    {
      name: 'an unexpected explicit tool enablement',
      higher: { apps: { connector_linear: { tools: { other: { enabled: true } } } } },
      expected: [{ path: '/apps/connector_linear/tools/other/enabled', code: 'INVALID_VALUE' }],
    },
    {
      name: 'a tool with a weaker approval',
      higher: { apps: { connector_linear: { tools: { other: { approval_mode: 'approve' } } } } },
      expected: [{ path: '/apps/connector_linear/tools/other/approval_mode', code: 'INVALID_VALUE' }],
    },
    {
      name: 'an account link with a weaker approval',
      higher: { apps: { connector_linear: { links: { acct: { default_tools_approval_mode: 'auto' } } } } },
      expected: [{ path: '/apps/connector_linear/links/acct/default_tools_approval_mode', code: 'INVALID_VALUE' }],
    },
    {
      name: 'open-world tools turned off',
      higher: { apps: { connector_linear: { open_world_enabled: false } } },
      expected: [{ path: '/apps/connector_linear/open_world_enabled', code: 'INVALID_VALUE' }],
    },
    { name: 'a malformed app', higher: { apps: { connector_linear: { enabled: 'yes' } } }, expected: [{ path: '/apps/connector_linear/enabled', code: 'INVALID_VALUE' }] },
  ];
  for (const { name, higher, expected } of cases) {
    it(`[X-15] rejects ${name} in a higher layer`, () => {
      expect(verify(layered(higher))).toEqual(expected);
    });
  }

  it('[X-15] [X-12] a layer holding back a tool the policy leaves to Codex passes', () => {
    expect(verify(layered({ apps: { connector_linear: { tools: { other: { enabled: false } } } } }))).toEqual([]);
  });
});

describe('verifyCodexReviewerConfiguration', () => {
  const human = artifactOf({ [LINEAR]: { enabled: true, toolDefaults: { reviewer: 'human' } } });
  const auto = artifactOf({ [LINEAR]: { enabled: true, toolDefaults: { reviewer: 'auto' } } });
  const check = (artifact: CodexRuntimeArtifact, higher: Record<string, unknown> = {}, requirements: CodexConfigRequirements | null = null, model: string | null = 'gpt-5') =>
    violationsAt(verifyCodexReviewerConfiguration({ artifact, effective: mergeLayers(applied(artifact), higher) as CodexConfig, requirements, model }));

  it('[X-19] passes what the edits wrote, and checks nothing when no reviewer was requested', () => {
    expect(check(human)).toEqual([]);
    expect(check(auto, { approval_policy: { granular: { rules: true } } })).toEqual([]);
    expect(check(artifactOf({ [LINEAR]: { enabled: true } }), { approval_policy: 'never' }, { allowedApprovalsReviewers: [] })).toEqual([]);
  });

  const at = '/apps/connector_linear/approvals_reviewer';
  const cases: Array<{
    name: string;
    artifact: CodexRuntimeArtifact;
    higher?: Record<string, unknown>;
    requirements?: CodexConfigRequirements;
    model?: string | null;
    expected: object[];
  }> = [
    { name: 'a reviewer the requirements forbid', artifact: auto, requirements: { allowedApprovalsReviewers: ['user'] }, expected: [{ path: at, code: 'UNSUPPORTED_VALUE' }] },
    {
      name: 'an app reviewer another layer changed',
      artifact: human,
      higher: { apps: { connector_linear: { approvals_reviewer: 'auto_review' } } },
      expected: [{ path: at, code: 'INVALID_VALUE' }],
    },
    {
      name: 'an account link with another reviewer',
      artifact: human,
      higher: { apps: { connector_linear: { links: { acct: { approvals_reviewer: 'auto_review' } } } } },
      expected: [{ path: '/apps/connector_linear/links/acct/approvals_reviewer', code: 'INVALID_VALUE' }],
    },
    {
      name: 'automatic review with approval_policy never',
      artifact: auto,
      higher: { approval_policy: 'never' },
      expected: [{ path: '/approval_policy', code: 'INVALID_COMBINATION' }],
    },
    {
      name: 'automatic review that requirements leave no policy for',
      artifact: auto,
      requirements: { allowedApprovalPolicies: ['never', 'untrusted'] },
      expected: [{ path: '/approval_policy', code: 'INVALID_COMBINATION' }],
    },
    {
      name: 'a human reviewer on a model that requires automatic review',
      artifact: human,
      requirements: { autoReview: { requiredOnModels: ['gpt-5'] } },
      expected: [{ path: at, code: 'INVALID_COMBINATION' }],
    },
    {
      name: 'a human reviewer while such requirements exist and the model is unknown',
      artifact: human,
      requirements: { autoReview: { requiredOnModels: ['gpt-5'] } },
      model: null,
      expected: [{ path: '/model', code: 'INVALID_COMBINATION' }],
    },
  ];
  for (const { name, artifact, higher, requirements, model, expected } of cases) {
    it(`[X-19] rejects ${name}`, () => {
      expect(check(artifact, higher, requirements ?? null, model === undefined ? 'gpt-5' : model)).toEqual(expected);
    });
  }

  it('[X-19] the legacy guardian_subagent name counts as auto_review; the effective model is used when none is given', () => {
    expect(check(auto, { apps: { connector_linear: { approvals_reviewer: 'guardian_subagent' } } }, { allowedApprovalsReviewers: ['guardian_subagent'] })).toEqual([]);
    expect(check(human, { model: 'gpt-5' }, { autoReview: { requiredOnModels: ['gpt-5'] } }, null)).toEqual([{ path: at, code: 'INVALID_COMBINATION' }]);
  });
});
