import { setOwn } from '../json.ts';
import type { CodexToolSetting } from './app-policy.ts';
import { CodexPolicyError, type CodexAppEntry, type CodexRuntimeArtifact } from './artifact.ts';
import { readEffectiveApps, type EffectiveApp } from './effective.ts';
import type { CodexConfig, CodexConfigEdit } from './native-types.ts';

export interface CodexAppConfigEditsInput {
  artifact: CodexRuntimeArtifact;
  /** `config/read`'s `config`, read (with the workspace `cwd`) before writing: the merged layers. */
  effective: CodexConfig;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * A `config/batchWrite` key path: TOML dotted keys. A segment that is not a bare key is written as
 * a TOML basic string (`apps."a.b".tools."x y"`), escaping `"`, `\` and control characters. This
 * is how the pinned Codex (0.154.0) parses `keyPath`; checked against the real app-server, which
 * split an unquoted `apps.a.b` into three tables and read `apps."a.b"` and `apps."_default"` as one key.
 */
export function codexKeyPath(segments: readonly string[]): string {
  return segments.map((segment) => (BARE_KEY.test(segment) ? segment : quoteKey(segment))).join('.');
}

function quoteKey(segment: string): string {
  // JSON escapes are valid TOML basic-string escapes; DEL is a control character to TOML but not to JSON.
  return JSON.stringify(segment).replace(/\u007f/g, '\\u007F');
}

/**
 * The `config/batchWrite` edits that apply an artifact to the user layer of the private CODEX_HOME
 * (X-11, X-13), every one a `replace` so each app's local subtree is exactly the artifact's:
 * `features.<f>`, `apps._default`, then each artifact app (plan order). Replacing a table in one
 * layer leaves other layers' descendants in the merged result, so for each enabled app the
 * requested tool enablement (the app's `default_tools_enabled`, only when set: X-12) and approval
 * default are materialized onto every tool entry the merged configuration already has, and the
 * approval default and reviewer onto every account link; a lower layer's child can then not keep
 * a weaker setting. Every other app of the merged configuration gets only `enabled = false`, its
 * other fields untouched (X-16). Pure: the inputs are read, never changed.
 * Throws CodexPolicyError when the effective configuration's `apps` cannot be read.
 */
export function codexAppConfigEdits({ artifact, effective }: CodexAppConfigEditsInput): CodexConfigEdit[] {
  const read = readEffectiveApps(effective);
  if (!read.ok) throw new CodexPolicyError(read.violations);
  const { apps: effectiveApps } = read.effective;
  const replace = (segments: string[], value: unknown): CodexConfigEdit => ({
    keyPath: codexKeyPath(segments),
    value,
    mergeStrategy: 'replace',
  });
  const edits: CodexConfigEdit[] = [];
  for (const feature of ['apps', 'plugins', 'remote_plugin'] as const) {
    edits.push(replace(['features', feature], artifact.features[feature]));
  }
  edits.push(replace(['apps', '_default'], { ...artifact.defaultApp }));
  for (const [app, entry] of Object.entries(artifact.apps)) {
    edits.push(replace(['apps', app], materialize(entry, effectiveApps.get(app))));
  }
  const unselected = [...effectiveApps.keys()].filter((app) => !Object.hasOwn(artifact.apps, app)).sort();
  for (const app of unselected) edits.push(replace(['apps', app, 'enabled'], false));
  return edits;
}

function materialize(entry: CodexAppEntry, inherited: EffectiveApp | undefined): Record<string, unknown> {
  const value: Record<string, unknown> = structuredClone({ ...entry });
  if (!entry.enabled || inherited === undefined) return value;
  const tools: Record<string, CodexToolSetting> = structuredClone({ ...entry.tools });
  for (const name of inherited.tools.keys()) {
    const setting: CodexToolSetting = Object.hasOwn(tools, name) ? tools[name]! : {};
    if (setting.enabled === undefined && entry.default_tools_enabled !== undefined) setting.enabled = entry.default_tools_enabled;
    if (setting.approval_mode === undefined) setting.approval_mode = entry.default_tools_approval_mode;
    setOwn(tools, name, setting);
  }
  if (Object.keys(tools).length > 0) value.tools = tools;
  const links: Record<string, Record<string, string>> = {};
  for (const linkId of inherited.links.keys()) {
    const link: Record<string, string> = { default_tools_approval_mode: entry.default_tools_approval_mode };
    if (entry.approvals_reviewer !== undefined) link.approvals_reviewer = entry.approvals_reviewer;
    setOwn(links, linkId, link);
  }
  if (Object.keys(links).length > 0) value.links = links;
  return value;
}
