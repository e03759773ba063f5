import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { violation } from '../shared-rules.ts';
import type { CodexConfig } from './native-types.ts';

/** Absent and `null` read the same: "not set at any layer". */
export type Unset = null;

export interface EffectiveTool {
  enabled: boolean | Unset;
  approval_mode: string | Unset;
}

export interface EffectiveLink {
  approvals_reviewer: string | Unset;
  default_tools_approval_mode: string | Unset;
}

export interface EffectiveApp {
  enabled: boolean | Unset;
  approvals_reviewer: string | Unset;
  destructive_enabled: boolean | Unset;
  open_world_enabled: boolean | Unset;
  default_tools_approval_mode: string | Unset;
  default_tools_enabled: boolean | Unset;
  tools: Map<string, EffectiveTool>;
  links: Map<string, EffectiveLink>;
}

/** The `apps` section of a `config/read` result, checked field by field. */
export interface EffectiveApps {
  /** `apps._default`; its `tools` and `links` are always empty. */
  defaultApp: EffectiveApp;
  /** Every other app, in the order read. */
  apps: Map<string, EffectiveApp>;
}

export type EffectiveAppsResult = { ok: true; effective: EffectiveApps } | { ok: false; violations: PolicyViolation[] };

/**
 * Reads the merged configuration's `apps` (untrusted: it comes from another process). A field of
 * the wrong type is a violation at its native pointer (`/apps/<id>/…`) rather than a guess, so a
 * readback Codex changed the shape of fails closed.
 */
export function readEffectiveApps(config: CodexConfig): EffectiveAppsResult {
  const violations: PolicyViolation[] = [];
  const section = objectAt(config.apps, ['apps'], violations);
  const apps = new Map<string, EffectiveApp>();
  let defaultApp = emptyApp();
  for (const [id, value] of Object.entries(section)) {
    const app = readApp(value, ['apps', id], violations);
    if (id === '_default') defaultApp = { ...app, tools: new Map(), links: new Map() };
    else apps.set(id, app);
  }
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, effective: { defaultApp, apps } };
}

/** A top-level string field (`model`, `approvals_reviewer`); `null` when unset or not a string. */
export function stringField(config: CodexConfig, field: string): string | Unset {
  const value = config[field];
  return typeof value === 'string' ? value : null;
}

function emptyApp(): EffectiveApp {
  return {
    enabled: null,
    approvals_reviewer: null,
    destructive_enabled: null,
    open_world_enabled: null,
    default_tools_approval_mode: null,
    default_tools_enabled: null,
    tools: new Map(),
    links: new Map(),
  };
}

function readApp(value: unknown, path: string[], violations: PolicyViolation[]): EffectiveApp {
  const raw = objectAt(value, path, violations);
  const read = reader(raw, path, violations);
  const tools = new Map<string, EffectiveTool>();
  for (const [name, tool] of Object.entries(objectAt(raw.tools, [...path, 'tools'], violations))) {
    const field = reader(objectAt(tool, [...path, 'tools', name], violations), [...path, 'tools', name], violations);
    tools.set(name, { enabled: field('enabled', 'boolean'), approval_mode: field('approval_mode', 'string') });
  }
  const links = new Map<string, EffectiveLink>();
  for (const [linkId, link] of Object.entries(objectAt(raw.links, [...path, 'links'], violations))) {
    const field = reader(objectAt(link, [...path, 'links', linkId], violations), [...path, 'links', linkId], violations);
    links.set(linkId, {
      approvals_reviewer: field('approvals_reviewer', 'string'),
      default_tools_approval_mode: field('default_tools_approval_mode', 'string'),
    });
  }
  return {
    enabled: read('enabled', 'boolean'),
    approvals_reviewer: read('approvals_reviewer', 'string'),
    destructive_enabled: read('destructive_enabled', 'boolean'),
    open_world_enabled: read('open_world_enabled', 'boolean'),
    default_tools_approval_mode: read('default_tools_approval_mode', 'string'),
    default_tools_enabled: read('default_tools_enabled', 'boolean'),
    tools,
    links,
  };
}

/** An object, `{}` for absent or null, and a violation for anything else. */
function objectAt(value: unknown, path: readonly string[], violations: PolicyViolation[]): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (isJsonObject(value)) return value;
  violations.push(violation(pointer(...path), 'INVALID_VALUE', 'The effective Codex configuration has an unexpected shape here.'));
  return {};
}

function reader(raw: Record<string, unknown>, path: readonly string[], violations: PolicyViolation[]) {
  function read(field: string, type: 'boolean'): boolean | Unset;
  function read(field: string, type: 'string'): string | Unset;
  function read(field: string, type: 'boolean' | 'string'): boolean | string | Unset {
    const value = Object.hasOwn(raw, field) ? raw[field] : undefined;
    if (value === undefined || value === null) return null;
    if (typeof value === type) return value as boolean | string;
    violations.push(violation(pointer(...path, field), 'INVALID_VALUE', `The effective Codex configuration's value here is not a ${type}.`));
    return null;
  }
  return read;
}
