import fc from 'fast-check';
import { APPROVAL_MODES, REVIEWERS, type Approver, type PluginMap, type PluginPolicyCapabilities, type PluginSelection } from '@occ/contracts';
import type { CodexMcpServerStatus, CodexPluginDetail, CodexTool, OpenClawCatalog, PluginPolicyRules } from '../src/index.ts';

/** Small pools so duplicates, aliases and escaping-worthy characters come up often. */
const approverArb: fc.Arbitrary<Approver> = fc.record({
  channel: fc.constantFrom('slack', 'teams', 'e-mail'),
  id: fc.constantFrom('U1', 'U2', 'W/3', 'team:T1:user:U1', '~0'),
});
const approverListArb = fc.array(approverArb, { maxLength: 4 });
const uniqueApproversArb = fc.uniqueArray(approverArb, { selector: (a) => `${a.channel}\n${a.id}`, maxLength: 4 });

const toolIdArb = fc.oneof(fc.constantFrom('diffs', 'a/b', '~1', 'x~y/z', 'app%2F1/tool'), fc.stringMatching(/^[!-~]{1,12}$/));
const pluginKeyArb = fc.oneof(
  fc.constantFrom('diffs', 'openclaw:diffs', '@scope/pkg', 'openclaw:@scope/pkg', 'a~b', 'a/b/c'),
  fc.constantFrom('linear@openai-curated-remote', 'codex:linear@openai-curated-remote', 'codex:', 'Bad@Market'),
  fc.stringMatching(/^[A-Za-z0-9._~:@/-]{1,16}$/),
);

const nonEmpty = <T extends object>(value: T) => Object.keys(value).length > 0;

/** Shape-valid maps using the whole vocabulary, valid or not for a given driver. */
export const anyPluginMapArb: fc.Arbitrary<PluginMap> = fc.dictionary(
  pluginKeyArb,
  fc.record(
    {
      enabled: fc.boolean(),
      approvers: approverListArb,
      toolDefaults: fc
        .record({ enabled: fc.boolean(), approval: fc.constantFrom(...APPROVAL_MODES), reviewer: fc.constantFrom(...REVIEWERS) }, { requiredKeys: [] })
        .filter(nonEmpty),
      tools: fc.dictionary(
        toolIdArb,
        fc
          .record(
            {
              enabled: fc.boolean(),
              approval: fc.constantFrom(...APPROVAL_MODES),
              reviewer: fc.constantFrom(...REVIEWERS),
              approvers: approverListArb,
            },
            { requiredKeys: [] },
          )
          .filter(nonEmpty),
        { maxKeys: 3 },
      ),
      driverPolicy: fc.dictionary(
        fc.constantFrom('destructiveEnabled', 'other', 'a/b', '~x'),
        fc.oneof(fc.boolean(), fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
        { maxKeys: 2 },
      ),
    },
    { requiredKeys: ['enabled'] },
  ),
  { maxKeys: 5 },
);

export const anyAgentApproversArb = fc.option(approverListArb, { nil: undefined });

const npmNameArb = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/);
const selectionKeyArbByDriver: Record<PluginPolicyRules['driverId'], fc.Arbitrary<string>> = {
  'openclaw-curated': fc
    .tuple(fc.boolean(), fc.option(npmNameArb, { nil: undefined }), npmNameArb)
    .map(([prefixed, scope, name]) => `${prefixed ? 'openclaw:' : ''}${scope ? `@${scope}/` : ''}${name}`),
  'codex-hosted': fc
    .tuple(fc.boolean(), fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,10}$/), fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/))
    .map(([prefixed, slug, marketplace]) => `${prefixed ? 'codex:' : ''}${slug}@${marketplace}`),
};

/** Only what `capabilities` advertises: a control whose scope list is empty is never generated. */
function capabilitySelectionArb(capabilities: PluginPolicyCapabilities): fc.Arbitrary<PluginSelection> {
  const controls = (scope: 'toolDefaults' | 'tools') => ({
    enabled: fc.boolean(),
    ...(capabilities.approval[scope].length > 0 && { approval: fc.constantFrom(...capabilities.approval[scope]) }),
    ...(capabilities.reviewer[scope].length > 0 && { reviewer: fc.constantFrom(...capabilities.reviewer[scope]) }),
  });
  const schemaProperties = (capabilities.driverPolicySchema.properties ?? {}) as Record<string, { type?: string }>;
  const booleanFields = Object.keys(schemaProperties).filter((field) => schemaProperties[field]?.type === 'boolean');
  return fc
    .record(
      {
        enabled: fc.boolean(),
        ...(capabilities.approvers.plugin && { approvers: uniqueApproversArb }),
        toolDefaults: fc.record(controls('toolDefaults'), { requiredKeys: [] }).filter(nonEmpty),
        tools: fc.dictionary(
          toolIdArb,
          fc.record({ ...controls('tools'), ...(capabilities.approvers.tool && { approvers: uniqueApproversArb }) }, { requiredKeys: [] }).filter(nonEmpty),
          { maxKeys: 3 },
        ),
        // A schema without properties leaves nothing worth saying, so the field is left out.
        ...(booleanFields.length > 0 && {
          driverPolicy: fc.record(Object.fromEntries(booleanFields.map((field) => [field, fc.boolean()])), {
            requiredKeys: [],
          }),
        }),
      },
      { requiredKeys: ['enabled'] },
    )
    .map(dropUnadvertisableCombination);
}

/** Cross-field rules cannot be expressed in capabilities; this is the one documented combination. */
function dropUnadvertisableCombination(selection: PluginSelection): PluginSelection {
  const { toolDefaults, driverPolicy } = selection;
  if (toolDefaults?.enabled === undefined || driverPolicy === undefined || !('destructiveEnabled' in driverPolicy)) {
    return selection;
  }
  const { enabled: _dropped, ...rest } = toolDefaults;
  return Object.keys(rest).length > 0 ? { ...selection, toolDefaults: rest } : omitToolDefaults(selection);
}

function omitToolDefaults({ toolDefaults: _dropped, ...selection }: PluginSelection): PluginSelection {
  return selection;
}

export function capabilityBodyArb(rules: PluginPolicyRules) {
  const keys = fc.uniqueArray(selectionKeyArbByDriver[rules.driverId], { selector: rules.nativePluginId, maxLength: 4 });
  return fc.record({
    plugins: keys.chain((unique) =>
      fc.tuple(...unique.map(() => capabilitySelectionArb(rules.capabilities))).map((selections) => Object.fromEntries(unique.map((key, index) => [key, selections[index]!]))),
    ),
    pluginApprovers: rules.capabilities.approvers.agent ? fc.option(uniqueApproversArb, { nil: undefined }) : fc.constant(undefined),
  });
}

// OpenClaw translator: a small plugin pool, so aliases, shared tool names and base-config
// entries that name a selected plugin (in other spellings) come up often.
const OPENCLAW_POOL = [
  { id: '@openclaw/nostr', pluginId: 'nostr', source: 'npm' },
  { id: 'browser', pluginId: 'browser', source: 'bundled' },
  { id: 'diffs', pluginId: 'diffs', source: 'bundled' },
  { id: 'slack', pluginId: 'slack', source: 'bundled' },
  { id: 'mystery', pluginId: 'mystery', source: 'npm' },
  /** Names the same OpenClaw plugin as `diffs`: an alias when both are selected. */
  { id: '@acme/diffs', pluginId: 'Diffs', source: 'npm' },
] as const;
const CORE_TOOLS = ['exec', 'read', 'group:fs', 'gateway'];

export interface OpenClawScenario {
  catalog: OpenClawCatalog;
  selections: PluginMap;
  baseConfig: Record<string, unknown>;
  failures: Set<string>;
}

/**
 * `clean`: only inputs the translator must accept (no aliases, no shared tool names, tool
 * policies only on known tools, a base that names no selected plugin in its global switches).
 */
export function openClawScenarioArb({ clean }: { clean: boolean }): fc.Arbitrary<OpenClawScenario> {
  return openClawCatalogArb(clean).chain((catalog) =>
    fc
      .record({ selections: openClawSelectionsArb(catalog, clean), baseConfig: openClawBaseArb(catalog, clean) })
      .chain(({ selections, baseConfig }) =>
        fc
          .tuple(...[...Object.keys(selections), 'ghost'].map((key) => rarely(key)))
          .map((failed) => ({ catalog, selections, baseConfig, failures: new Set(failed.filter((key) => key !== null)) })),
      ),
  );
}

/** `value` about one time in eight, otherwise null. */
function rarely<T>(value: T): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 7 }, { arbitrary: fc.constant(value), weight: 1 });
}

function openClawCatalogArb(clean: boolean): fc.Arbitrary<OpenClawCatalog> {
  const pool = clean ? OPENCLAW_POOL.filter(({ id }) => id !== '@acme/diffs') : OPENCLAW_POOL;
  return fc.subarray([...pool], { minLength: 1 }).chain((entries) =>
    fc.tuple(...entries.map(({ pluginId }) => openClawToolsArb(pluginId, clean))).map((toolLists) => ({
      runtime: { package: 'openclaw' as const, version: '2026.9.5', integrity: 'sha512-runtime' },
      plugins: entries
        .map(({ id, pluginId, source }, index) => ({
          id,
          pluginId,
          name: pluginId,
          description: '',
          source,
          package: source === 'npm' ? id : 'openclaw',
          version: '1.0.0',
          integrity: `sha512-${pluginId}`,
          tools: toolLists[index] ?? null,
        }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    })),
  );
}

function openClawToolsArb(pluginId: string, clean: boolean): fc.Arbitrary<string[] | null> {
  const own = [`${pluginId.toLowerCase()}_read`, `${pluginId.toLowerCase()}_write`, `${pluginId.toLowerCase()}/admin~1`];
  const shared = clean ? [] : [{ arbitrary: fc.constantFrom('shared', 'Shared'), weight: 1 }];
  const name = fc.oneof({ arbitrary: fc.constantFrom(...own), weight: 6 }, ...shared);
  return fc.option(fc.uniqueArray(name, { maxLength: 3 }), { nil: null, freq: 4 });
}

function openClawSelectionsArb(catalog: OpenClawCatalog, clean: boolean): fc.Arbitrary<PluginMap> {
  const keyed = catalog.plugins.map((plugin) =>
    fc.tuple(fc.boolean(), openClawSelectionArb(plugin.tools, clean)).map(([prefixed, selection]) => ({
      key: `${prefixed ? 'openclaw:' : ''}${plugin.id}`,
      selection,
    })),
  );
  const ghost = clean ? fc.constant(null) : rarely({ key: 'ghost', selection: { enabled: true } as PluginSelection });
  return fc
    .tuple(
      fc.tuple(...keyed).chain((all) => fc.shuffledSubarray(all, { minLength: 1 })),
      ghost,
    )
    .map(([chosen, extra]) => [...chosen, ...(extra ? [extra] : [])])
    .map((entries) => Object.fromEntries(entries.map(({ key, selection }) => [key, selection])));
}

function openClawSelectionArb(tools: readonly string[] | null, clean: boolean): fc.Arbitrary<PluginSelection> {
  const controls = {
    enabled: fc.boolean(),
    approval: fc.constantFrom('provider_default' as const, 'none' as const),
  };
  const mostlyEnabled = fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 });
  const known = tools ?? [];
  const unbound = clean ? [] : [{ arbitrary: fc.constant(tools === null ? 'unbound' : 'not_registered'), weight: 1 }];
  const toolIdArbs = [...(known.length > 0 ? [{ arbitrary: fc.constantFrom(...known), weight: 20 }] : []), ...unbound];
  return fc.record(
    {
      enabled: mostlyEnabled,
      toolDefaults: fc.record(controls, { requiredKeys: [] }).filter(nonEmpty),
      ...(toolIdArbs.length > 0 && {
        // Only unbindable ids to pick from: mostly say nothing about tools.
        tools: fc.dictionary(fc.oneof(...toolIdArbs), fc.record(controls, { requiredKeys: [] }).filter(nonEmpty), {
          maxKeys: known.length > 0 ? 3 : 1,
          ...(known.length === 0 && { size: 'xsmall' as const }),
        }),
      }),
    },
    { requiredKeys: ['enabled'] },
  );
}

/** Without `clean`, one base in three may conflict: global plugin switches, odd entries, denied plugin ids. */
function openClawBaseArb(catalog: OpenClawCatalog, clean: boolean): fc.Arbitrary<Record<string, unknown>> {
  const cleanBase = baseConfigArb(catalog, true);
  if (clean) return cleanBase;
  return fc.oneof({ arbitrary: cleanBase, weight: 2 }, { arbitrary: baseConfigArb(catalog, false), weight: 1 });
}

function baseConfigArb(catalog: OpenClawCatalog, clean: boolean): fc.Arbitrary<Record<string, unknown>> {
  const pluginIds = catalog.plugins.map(({ pluginId }) => pluginId);
  const pluginNames = [...pluginIds, ...pluginIds.map((id) => ` ${id.toUpperCase()}`), 'unrelated'];
  const toolNames = catalog.plugins.flatMap(({ tools }) => tools ?? []);
  const grantEntry = fc.constantFrom(...CORE_TOOLS, ...pluginNames, ...(clean ? [] : [...toolNames, '*']));
  const list = (entry: fc.Arbitrary<string>) => fc.array(entry, { maxLength: 3 });
  // A clean non-empty allow keeps a core tool, so withdrawing plugin grants can never empty it.
  const allow = clean ? list(grantEntry).map((entries) => (entries.length > 0 ? ['exec', ...entries] : entries)) : list(grantEntry);
  const managedEntry = fc.record({ enabled: fc.boolean() });
  const entry = clean ? managedEntry : fc.oneof(managedEntry, fc.constant({ enabled: true, config: { a: 1 } }));
  return fc.record(
    {
      gateway: fc.constant({ mode: 'local', port: 18789 }),
      tools: fc.record(
        {
          profile: fc.constantFrom('minimal', 'coding', 'full'),
          allow,
          alsoAllow: list(grantEntry),
          deny: list(clean ? fc.constantFrom(...CORE_TOOLS, ...toolNames) : grantEntry),
        },
        { requiredKeys: [] },
      ),
      plugins: fc.record(
        {
          entries: fc.dictionary(fc.constantFrom(...pluginIds, 'unrelated'), entry, { maxKeys: 3 }),
          ...(!clean && {
            enabled: fc.boolean(),
            allow: list(fc.constantFrom(...pluginNames)),
            deny: list(fc.constantFrom(...pluginNames)),
          }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );
}

// Codex translator: three plugins over a small app pool, so shared apps, aliases that name two
// tools and ids of another plugin's tools come up often. Two tools per app: a read-only one and
// one that may be destructive, each with a catalog action.
const CODEX_PLUGINS = ['linear@openai-curated-remote', 'gmail@openai-curated-remote', 'drive@acme'] as const;
const CODEX_APPS = ['app_a', 'app_b', 'app.c', 'app_d'] as const;

export interface CodexScenario {
  selections: PluginMap;
  details: Map<string, CodexPluginDetail>;
  inventory: CodexMcpServerStatus[];
  failures: Set<string>;
  /** The layers below the one the runtime writes: `config/read` before the write. */
  lower: Record<string, unknown>;
}

function codexToolsOf(app: string): CodexTool[] {
  const uri = (action: string) => ({ resource_uri: `/${encodeURIComponent(app)}/records/${action}` });
  return [
    { name: `${app}_read`, annotations: { readOnlyHint: true }, _meta: { connector_id: app, _codex_apps: uri('list') } },
    { name: `${app}_write`, annotations: { destructiveHint: true }, _meta: { connector_id: app, _codex_apps: uri('update') } },
  ];
}

function codexToolIdsOf(app: string): string[] {
  const enc = encodeURIComponent(app);
  return [`${app}_read`, `${app}_write`, `${enc}/list`, `${enc}/update`, `${enc}/${app}_write`];
}

const codexInventory: CodexMcpServerStatus[] = [
  {
    name: 'codex_apps',
    tools: Object.fromEntries(CODEX_APPS.flatMap(codexToolsOf).map((tool) => [tool.name, tool])),
    toolsError: null,
  },
];

const codexApprovalArb = fc.constantFrom(...APPROVAL_MODES);

function codexSelectionArb(toolIds: readonly string[]): fc.Arbitrary<PluginSelection> {
  return fc
    .record(
      {
        enabled: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
        toolDefaults: fc.record({ enabled: fc.boolean(), approval: codexApprovalArb, reviewer: fc.constantFrom(...REVIEWERS) }, { requiredKeys: [] }).filter(nonEmpty),
        tools: fc.dictionary(fc.constantFrom(...toolIds, 'unknown_tool'), fc.record({ enabled: fc.boolean(), approval: codexApprovalArb }, { requiredKeys: [] }).filter(nonEmpty), {
          minKeys: 1,
          maxKeys: 3,
        }),
        driverPolicy: fc.record({ destructiveEnabled: fc.boolean() }),
      },
      { requiredKeys: ['enabled', 'tools'] },
    )
    .map(dropUnadvertisableCombination);
}

const codexLowerArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    features: fc.record({ apps: fc.boolean(), plugins: fc.boolean(), remote_plugin: fc.boolean() }, { requiredKeys: [] }),
    approvals_reviewer: fc.constantFrom('user', 'auto_review'),
    apps: fc.dictionary(
      fc.constantFrom(...CODEX_APPS, '_default', 'stray'),
      fc.record(
        {
          enabled: fc.boolean(),
          approvals_reviewer: fc.constantFrom('user', 'auto_review', null),
          destructive_enabled: fc.boolean(),
          open_world_enabled: fc.boolean(),
          default_tools_approval_mode: fc.constantFrom('auto', 'prompt', 'writes', 'approve', null),
          // A lower layer may hold a tool back but never switch one on: that conflict is verified apart.
          tools: fc.dictionary(
            fc.constantFrom(...CODEX_APPS.flatMap((app) => [`${app}_read`, `${app}_write`]), 'legacy'),
            fc.record({ enabled: fc.constantFrom(false, null), approval_mode: fc.constantFrom('auto', 'approve', null) }, { requiredKeys: [] }),
            { maxKeys: 2 },
          ),
          links: fc.dictionary(
            fc.constantFrom('acct_1', 'acct.2'),
            fc.record({ approvals_reviewer: fc.constantFrom('user', 'auto_review'), default_tools_approval_mode: fc.constantFrom('auto', 'approve') }, { requiredKeys: [] }),
            { maxKeys: 2 },
          ),
        },
        { requiredKeys: [] },
      ),
      { maxKeys: 4 },
    ),
  },
  { requiredKeys: [] },
);

export const codexScenarioArb: fc.Arbitrary<CodexScenario> = fc
  .tuple(...CODEX_PLUGINS.map(() => fc.subarray([...CODEX_APPS], { minLength: 1, maxLength: 2 })))
  .chain((appsByPlugin) =>
    fc.record({
      chosen: fc.subarray(
        CODEX_PLUGINS.map((nativeId, index) => ({ nativeId, apps: appsByPlugin[index]! })),
        { minLength: 1 },
      ),
      prefixed: fc.boolean(),
      lower: codexLowerArb,
    }),
  )
  .chain(({ chosen, prefixed, lower }) =>
    fc.tuple(...chosen.map(({ apps }) => codexSelectionArb(apps.flatMap(codexToolIdsOf))), fc.tuple(...chosen.map(({ nativeId }) => rarely(nativeId)))).map(([...drawn]) => {
      const failed = (drawn.pop() as Array<string | null>).filter((nativeId) => nativeId !== null);
      const key = (nativeId: string) => (prefixed ? `codex:${nativeId}` : nativeId);
      const selections = Object.fromEntries(chosen.map(({ nativeId }, index) => [key(nativeId), drawn[index] as PluginSelection]));
      const details = new Map(chosen.map(({ nativeId, apps }) => [key(nativeId), codexDetail(nativeId, apps)] as const));
      return { selections, details, inventory: codexInventory, failures: new Set(failed.map(key)), lower };
    }),
  );

function codexDetail(nativeId: string, apps: readonly string[]): CodexPluginDetail {
  const [name, marketplaceName] = nativeId.split('@') as [string, string];
  return {
    marketplaceName,
    summary: { id: nativeId, name, version: '1.0.0', localVersion: null },
    skills: [{ name: 'a-skill' }],
    hooks: [],
    apps: apps.map((id) => ({ id, name: id })),
    appTemplates: [{ id: 'template_only' }],
    mcpServers: [],
    scheduledTasks: null,
  };
}
