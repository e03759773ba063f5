import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { violation } from '../shared-rules.ts';
import type { CodexAppEntry, CodexRuntimeArtifact } from './artifact.ts';
import { readEffectiveApps, type EffectiveApp } from './effective.ts';
import type { CodexConfig } from './native-types.ts';

export interface CodexAppVerificationInput {
  artifact: CodexRuntimeArtifact;
  /** `config/read`'s `config` after the write, read with the workspace `cwd` (trusted project layers included). */
  effective: CodexConfig;
}

/** What Codex assumes when no layer sets a category, tool enablement or approval mode. */
const NATIVE_CATEGORY = true;
const NATIVE_TOOL_ENABLED = true;
const NATIVE_APPROVAL = 'auto';

/**
 * Checks the merged configuration read back after the write against the artifact (X-14 readback,
 * ), so a workspace or managed layer that weakens the policy fails startup before
 * readiness. Violations point into the effective configuration (`/apps/<id>/…`, `/features/<f>`),
 * not the Agent body; `[]` means it matches.
 * - the features and `apps._default` are what the artifact asks for;
 * - an app the artifact does not name, or names `{enabled: false}`, is disabled; its other fields
 *   may be anything a layer left there;
 * - an enabled app is enabled and each field the artifact sets resolves to that value. Categories
 *   resolve app → `_default` → native `true`, so an unset field equal to what it inherits
 *   passes, and so does an explicit equal value;
 * - each tool the artifact or any layer names: enablement resolves tool → app default → `true` and
 *   equals the tool override, else the app default; with neither, an explicit `enabled: true`
 *   from some layer is rejected, an explicit `false` (a layer holding it back) passes. The approval
 *   mode resolves tool → app → `_default` → `auto` and equals the override, else the app default;
 * - each account link's approval default resolves to the app's requested default.
 * Reviewers (app and link) are checked by verifyCodexReviewerConfiguration, with `configRequirements/read`.
 * A readback may omit managed requirements Codex applies only while a turn runs: a pass here
 * proves the configuration, not everything Codex will enforce.
 */
export function verifyCodexAppConfiguration({ artifact, effective }: CodexAppVerificationInput): PolicyViolation[] {
  const read = readEffectiveApps(effective);
  if (!read.ok) return read.violations;
  const { defaultApp, apps } = read.effective;
  const found: PolicyViolation[] = [];
  const mismatch = (segments: string[], message: string) => found.push(violation(pointer(...segments), 'INVALID_VALUE', message));

  const features = isJsonObject(effective.features) ? effective.features : {};
  for (const [feature, wanted] of Object.entries(artifact.features)) {
    if (features[feature] !== wanted) mismatch(['features', feature], `Feature ${feature} must be ${wanted}.`);
  }
  for (const [field, wanted] of Object.entries(artifact.defaultApp)) {
    if (defaultApp[field as keyof typeof artifact.defaultApp] !== wanted) {
      mismatch(['apps', '_default', field], `apps._default.${field} must be ${wanted}.`);
    }
  }
  for (const [id, app] of apps) {
    const entry = Object.hasOwn(artifact.apps, id) ? artifact.apps[id]! : { enabled: false as const };
    if (!entry.enabled) {
      if (app.enabled !== false) mismatch(['apps', id, 'enabled'], 'An app no enabled selection uses must be disabled.');
    }
  }
  for (const [id, entry] of Object.entries(artifact.apps)) {
    if (!entry.enabled) continue;
    const app = apps.get(id);
    if (app === undefined || app.enabled !== true) {
      mismatch(['apps', id, 'enabled'], 'A selected app must be enabled.');
      continue;
    }
    found.push(...verifyEnabledApp(id, entry, app, defaultApp));
  }
  return found;
}

type EnabledEntry = Extract<CodexAppEntry, { enabled: true }>;

function verifyEnabledApp(id: string, entry: EnabledEntry, app: EffectiveApp, defaultApp: EffectiveApp): PolicyViolation[] {
  const found: PolicyViolation[] = [];
  const expect = (segments: string[], actual: unknown, wanted: unknown) => {
    if (actual !== wanted) {
      const message = `Resolves to ${JSON.stringify(actual)} in the effective configuration; the policy asks for ${JSON.stringify(wanted)}.`;
      found.push(violation(pointer('apps', id, ...segments), 'INVALID_VALUE', message));
    }
  };
  const appApproval = app.default_tools_approval_mode ?? defaultApp.default_tools_approval_mode ?? NATIVE_APPROVAL;
  const appToolsEnabled = app.default_tools_enabled ?? NATIVE_TOOL_ENABLED;
  for (const category of ['destructive_enabled', 'open_world_enabled'] as const) {
    expect([category], app[category] ?? defaultApp[category] ?? NATIVE_CATEGORY, entry[category]);
  }
  expect(['default_tools_approval_mode'], appApproval, entry.default_tools_approval_mode);
  if (entry.default_tools_enabled !== undefined) expect(['default_tools_enabled'], appToolsEnabled, entry.default_tools_enabled);
  const requested = entry.tools ?? {};
  const names = new Set([...Object.keys(requested), ...app.tools.keys()]);
  for (const name of [...names].sort()) {
    const override = Object.hasOwn(requested, name) ? requested[name]! : {};
    const tool = app.tools.get(name) ?? { enabled: null, approval_mode: null };
    const wantedEnabled = override.enabled ?? entry.default_tools_enabled;
    if (wantedEnabled !== undefined) {
      expect(['tools', name, 'enabled'], tool.enabled ?? appToolsEnabled, wantedEnabled);
    } else if (tool.enabled === true) {
      const message = 'A layer enables this tool explicitly, but the policy leaves its enablement to Codex.';
      found.push(violation(pointer('apps', id, 'tools', name, 'enabled'), 'INVALID_VALUE', message));
    }
    const wantedApproval = override.approval_mode ?? entry.default_tools_approval_mode;
    expect(['tools', name, 'approval_mode'], tool.approval_mode ?? appApproval, wantedApproval);
  }
  for (const [linkId, link] of [...app.links].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    expect(['links', linkId, 'default_tools_approval_mode'], link.default_tools_approval_mode ?? appApproval, entry.default_tools_approval_mode);
  }
  return found;
}
