import type { PluginMap, PluginSelection, PolicyViolation } from '@occ/contracts';
import { CODEX_SELECTION_PREFIX, codexHostedRules } from '../codex-hosted.ts';
import { jsonEqual } from '../json.ts';
import { pointer } from '../json-pointer.ts';
import { dedupeViolations, stripPrefix, violation } from '../shared-rules.ts';
import { codexAppPolicy, codexToolSetting } from './app-policy.ts';
import type { CodexPluginDetail } from './native-types.ts';

/** One selection resolved against its `plugin/read` detail. */
export interface CodexInstallRow {
  selectionKey: string;
  selection: PluginSelection;
  /** `<slug>@<marketplace>`: the catalog's `summary.id` and the gateway bridge's entry key. */
  nativeId: string;
  pluginName: string;
  marketplaceName: string;
  /** `summary.version ?? summary.localVersion`; null only for a disabled selection read without a detail. */
  version: string | null;
  /** The detail's concrete app ids, in detail order; templates never count. */
  apps: string[];
  /** `selection.enabled`: a disabled selection is neither installed nor given a status. */
  enabled: boolean;
}

export interface CodexInstallPlan {
  /** One row per selection, sorted by selection key so the plan never depends on JSON key order. */
  rows: CodexInstallRow[];
}

export type CodexInstallPlanResult = { ok: true; plan: CodexInstallPlan } | { ok: false; violations: PolicyViolation[] };

export interface CodexInstallPlanInput {
  selections: PluginMap;
  /** `plugin/read` details by selection key; every enabled selection needs one. */
  details: ReadonlyMap<string, CodexPluginDetail>;
}

/** Component kinds a plugin may ship that OCC's policy cannot govern: one of them refuses the plugin. */
const UNSUPPORTED_COMPONENTS = ['hooks', 'mcpServers', 'scheduledTasks'] as const;

/** The key `apps._default` configures every app without its own table; a plugin's app cannot take it. */
const RESERVED_APP_ID = '_default';

/**
 * Decides, before anything is installed, whether every selection can be installed and
 * governed: the static policy rules again (the revision may predate a rule), then per selection
 * the detail's identity, version and components. Skills are allowed, but Codex enables skills
 * account-wide (`skills.config` in config.toml, not per plugin or per app), so a policy cannot
 * restrict one: a `driverPolicy` field that would say so is refused by codexHostedRules
 * (UNSUPPORTED_FIELD), and a tool policy naming one of the plugin's skills is refused here rather
 * than failing later as an unknown tool with a misleading message. Violations point into the Agent
 * body (`/plugins/<key>/…`).
 */
export function codexInstallPlan({ selections, details }: CodexInstallPlanInput): CodexInstallPlanResult {
  const violations = [...codexHostedRules.validatePolicies(selections)];
  const rows: CodexInstallRow[] = [];
  for (const selectionKey of Object.keys(selections).sort()) {
    const selection = selections[selectionKey]!;
    const detail = details.get(selectionKey);
    const nativeId = stripPrefix(selectionKey, CODEX_SELECTION_PREFIX);
    const at = nativeId.lastIndexOf('@');
    const row: CodexInstallRow = {
      selectionKey,
      selection,
      nativeId,
      pluginName: nativeId.slice(0, at),
      marketplaceName: nativeId.slice(at + 1),
      version: null,
      apps: [],
      enabled: selection.enabled,
    };
    rows.push(row);
    if (detail === undefined) {
      if (selection.enabled) {
        violations.push(violation(pointer('plugins', selectionKey), 'INVALID_VALUE', 'No plugin detail was read for this selection.'));
      }
      continue;
    }
    violations.push(...checkDetail(row, detail));
    row.version = detail.summary.version ?? detail.summary.localVersion;
    row.apps = [...new Set(detail.apps.map((app) => app.id))];
  }
  violations.push(...checkSharedApps(rows));
  if (violations.length > 0) return { ok: false, violations: dedupeViolations(violations) };
  return { ok: true, plan: { rows } };
}

function checkDetail(row: CodexInstallRow, detail: CodexPluginDetail): PolicyViolation[] {
  const { selectionKey, nativeId, selection, enabled } = row;
  const at = pointer('plugins', selectionKey);
  const found: PolicyViolation[] = [];
  // A detail read for another plugin would attach that plugin's apps to this policy, enabled or not.
  if (detail.summary.id !== nativeId) {
    found.push(violation(at, 'INVALID_VALUE', `The catalog answered for ${JSON.stringify(detail.summary.id)}, not this plugin.`));
  }
  if (detail.apps.some((app) => app.id === RESERVED_APP_ID)) {
    found.push(violation(at, 'INVALID_VALUE', 'The plugin declares an app with the reserved id "_default".'));
  }
  if (!enabled) return found;
  if ((detail.summary.version ?? detail.summary.localVersion) === null) {
    found.push(violation(at, 'INVALID_VALUE', 'The catalog reports no version for this plugin.'));
  }
  for (const component of UNSUPPORTED_COMPONENTS) {
    const shipped = detail[component];
    if (shipped !== null && shipped.length > 0) {
      const message = `The plugin ships ${component}, which OCC cannot govern by policy.`;
      found.push(violation(at, 'UNSUPPORTED_VALUE', message));
    }
  }
  const skills = new Set(detail.skills.map((skill) => skill.name));
  for (const toolId of Object.keys(selection.tools ?? {}).sort()) {
    if (!skills.has(toolId)) continue;
    const message = 'Skills cannot be restricted per plugin: Codex enables skills account-wide.';
    found.push(violation(pointer('plugins', selectionKey, 'tools', toolId), 'UNSUPPORTED_VALUE', message));
  }
  return found;
}

/**
 * One app in two selections gets one native table, so the selections must agree on it: both
 * enabled or both disabled, and the same serialized app policy (defaults and tool overrides).
 * The first key (sorted) sets the app; every later disagreeing selection is flagged.
 */
function checkSharedApps(rows: readonly CodexInstallRow[]): PolicyViolation[] {
  const firstOwner = new Map<string, CodexInstallRow>();
  const found: PolicyViolation[] = [];
  for (const row of rows) {
    for (const app of row.apps) {
      const owner = firstOwner.get(app);
      if (owner === undefined) {
        firstOwner.set(app, row);
        continue;
      }
      const other = JSON.stringify(owner.selectionKey);
      if (owner.enabled !== row.enabled) {
        const message = `App ${JSON.stringify(app)} is shared with ${other}, which is ${owner.enabled ? 'enabled' : 'disabled'}.`;
        found.push(violation(pointer('plugins', row.selectionKey, 'enabled'), 'INVALID_COMBINATION', message));
      } else if (!jsonEqual(serializedAppPolicy(owner.selection), serializedAppPolicy(row.selection))) {
        const message = `App ${JSON.stringify(app)} is shared with ${other}, whose policy for it differs.`;
        found.push(violation(pointer('plugins', row.selectionKey), 'INVALID_COMBINATION', message));
      }
    }
  }
  return found;
}

function serializedAppPolicy(selection: PluginSelection): unknown {
  const toolIds = Object.keys(selection.tools ?? {});
  return {
    app: codexAppPolicy(selection),
    tools: Object.fromEntries(toolIds.map((toolId) => [toolId, codexToolSetting(selection, toolId)])),
  };
}
