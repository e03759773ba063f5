import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { violation } from '../shared-rules.ts';
import { isStringList } from '../json.ts';
import { normalizeNativeName } from './plan.ts';
import type { ManagedPlugin } from './resolve.ts';

/** An OpenClaw configuration document (`openclaw.json`), as JSON. */
export type OpenClawConfig = Record<string, unknown>;

/** The parts of the operator's base configuration the translation reads. */
export interface NativeBase {
  tools: { allow?: string[]; alsoAllow?: string[]; deny?: string[]; profile?: unknown };
  plugins: { enabled?: boolean; allow?: string[]; deny?: string[]; entries: Record<string, unknown> };
}

const LISTS = ['allow', 'alsoAllow', 'deny'] as const;

/** Reads the base; a field of the wrong type is a violation at `''` (it is not in the Agent body). */
export function readNativeBase(config: OpenClawConfig): { base: NativeBase; violations: PolicyViolation[] } {
  const violations: PolicyViolation[] = [];
  const malformed = (field: string, expected: string) => violations.push(violation('', 'INVALID_VALUE', `The base configuration's ${field} is not ${expected}.`));
  const section = (name: 'tools' | 'plugins'): Record<string, unknown> => {
    const value = config[name];
    if (value === undefined || isJsonObject(value)) return value ?? {};
    malformed(name, 'an object');
    return {};
  };
  const list = (from: Record<string, unknown>, field: string, name: string): string[] | undefined => {
    const value = from[field];
    if (value === undefined || isStringList(value)) return value;
    malformed(name, 'a list of strings');
    return undefined;
  };
  const tools = section('tools');
  const plugins = section('plugins');
  const base: NativeBase = { tools: {}, plugins: { entries: {} } };
  for (const field of LISTS) base.tools[field] = list(tools, field, `tools.${field}`);
  if (tools.profile !== undefined) base.tools.profile = tools.profile;
  base.plugins.allow = list(plugins, 'allow', 'plugins.allow');
  base.plugins.deny = list(plugins, 'deny', 'plugins.deny');
  if (plugins.enabled !== undefined && typeof plugins.enabled !== 'boolean') malformed('plugins.enabled', 'a boolean');
  else base.plugins.enabled = plugins.enabled as boolean | undefined;
  if (plugins.entries !== undefined && !isJsonObject(plugins.entries)) malformed('plugins.entries', 'an object');
  else base.plugins.entries = plugins.entries ?? {};
  return { base, violations };
}

export interface MergedToolLists {
  /** Where grants go: native `allow` and `alsoAllow` are mutually exclusive. */
  placement: 'allow' | 'alsoAllow';
  /** The plugin ids granted, in selection order. */
  grants: string[];
  /** `undefined`: the field stays as it is in the base (absent). */
  allow?: string[];
  alsoAllow?: string[];
  deny?: string[];
  /** Managed ids of inactive plugins that were removed from a non-empty `allow`, emptying it. */
  emptiedAllowBy: string[];
}

/**
 * Grants go into a non-empty base `allow`, otherwise into `alsoAllow`; lists are unioned in base
 * order; inactive managed plugin ids leave `allow`/`alsoAllow`; every base deny stays; an empty
 * `allow: []` and the profile are left alone.
 */
export function mergeToolLists(base: NativeBase, managed: readonly ManagedPlugin[]): MergedToolLists {
  const inactive = new Map(managed.filter((plugin) => !plugin.active).map(({ planned }) => [normalizeNativeName(planned.pluginId), planned.selectionKey]));
  const keep = (list: readonly string[]) => list.filter((entry) => !inactive.has(normalizeNativeName(entry)));
  const grants = managed.filter((plugin) => plugin.grant).map(({ planned }) => planned.pluginId);
  const managedDeny = managed.flatMap((plugin) => plugin.deny);
  const { allow, alsoAllow, deny } = base.tools;
  const placement = allow !== undefined && allow.length > 0 ? 'allow' : 'alsoAllow';
  const merged: MergedToolLists = { placement, grants, allow, emptiedAllowBy: [] };
  if (placement === 'allow') {
    merged.allow = union(keep(allow!), grants);
    if (merged.allow.length === 0) {
      merged.emptiedAllowBy = [...new Set(allow!.map((entry) => inactive.get(normalizeNativeName(entry))!))];
    }
    if (alsoAllow !== undefined) merged.alsoAllow = keep(alsoAllow);
  } else if (alsoAllow !== undefined || grants.length > 0) {
    merged.alsoAllow = union(keep(alsoAllow ?? []), grants);
  }
  if (deny !== undefined || managedDeny.length > 0) merged.deny = union(deny ?? [], managedDeny);
  return merged;
}

/** `first` stays as it is (duplicates included); `second` adds what it lacks. */
function union(first: readonly string[], second: readonly string[]): string[] {
  const result = [...first];
  const present = new Set(first);
  for (const entry of second) {
    if (present.has(entry)) continue;
    present.add(entry);
    result.push(entry);
  }
  return result;
}
