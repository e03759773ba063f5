import { pointer } from '../json-pointer.ts';
import { OPENCLAW_NATIVE_ID_PATTERN } from '../openclaw-curated.ts';
import type { OpenClawCatalog, OpenClawCatalogPlugin } from './catalog.ts';

/** A malformed catalog; `path` is the JSON pointer of the first offending field. */
export class OpenClawCatalogError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`OpenClaw catalog: ${path || '/'} ${problem}`);
    this.name = 'OpenClawCatalogError';
  }
}

/** An exact semantic version: no ranges, tags or `v` prefix. */
const EXACT_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
const SHA512_INTEGRITY = /^sha512-[A-Za-z0-9+/]{86}==$/;
/** OpenClaw's own plugin id (`plugins.entries.<pluginId>`). */
const PLUGIN_ID = /^[a-z0-9][a-z0-9._-]*$/;
/** npm's limit on package names; the selection-key schema allows no longer. */
const MAX_ID_LENGTH = 214;
const MAX_NAME_LENGTH = 1024;
const MAX_DESCRIPTION_LENGTH = 4096;
const MAX_TOOLS = 10_000;
const MAX_TOOL_NAME_LENGTH = 1024;

const PLUGIN_FIELDS = ['id', 'pluginId', 'name', 'description', 'source', 'package', 'version', 'integrity', 'tools'] as const;

type Path = ReadonlyArray<string | number>;

function fail(path: Path, problem: string): never {
  throw new OpenClawCatalogError(pointer(...path), problem);
}

function object(value: unknown, path: Path, fields: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!fields.includes(key)) fail([...path, key], 'is not a catalog field');
  for (const key of fields) if (!Object.hasOwn(record, key)) fail([...path, key], 'is required');
  return record;
}

/** A string of at most `maxLength` characters that matches `pattern` (when given). */
function text(value: unknown, path: Path, maxLength: number, pattern?: RegExp, patternProblem = 'is not valid'): string {
  if (typeof value !== 'string') fail(path, 'must be a string');
  if (value.length > maxLength) fail(path, `must hold at most ${maxLength} characters`);
  if (pattern !== undefined && !pattern.test(value)) fail(path, patternProblem);
  return value;
}

const NON_BLANK = /\S/;

function tools(value: unknown, path: Path): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) fail(path, 'must be a list of tool names or null (unknown)');
  if (value.length > MAX_TOOLS) fail(path, `must hold at most ${MAX_TOOLS} tools`);
  const names = value.map((name, index) => text(name, [...path, index], MAX_TOOL_NAME_LENGTH, /^\S(.*\S)?$/, 'must be a non-empty name without surrounding blanks'));
  names.forEach((name, index) => {
    if (index > 0 && !(names[index - 1]! < name)) fail([...path, index], 'must be sorted and unique');
  });
  return names;
}

function plugin(value: unknown, index: number, runtime: OpenClawCatalog['runtime']): OpenClawCatalogPlugin {
  const path = ['plugins', index];
  const raw = object(value, path, PLUGIN_FIELDS);
  const at = (field: string) => [...path, field];
  const id = text(raw.id, at('id'), MAX_ID_LENGTH, OPENCLAW_NATIVE_ID_PATTERN, 'must be a plugin id or npm package name');
  const pluginId = text(raw.pluginId, at('pluginId'), MAX_ID_LENGTH, PLUGIN_ID, 'must be an OpenClaw plugin id');
  const name = text(raw.name, at('name'), MAX_NAME_LENGTH, NON_BLANK, 'must not be blank');
  const description = text(raw.description, at('description'), MAX_DESCRIPTION_LENGTH);
  if (raw.source !== 'bundled' && raw.source !== 'npm') fail(at('source'), 'must be "bundled" or "npm"');
  const source = raw.source;
  const pkg = text(raw.package, at('package'), MAX_ID_LENGTH, OPENCLAW_NATIVE_ID_PATTERN, 'must be an npm package name');
  const version = text(raw.version, at('version'), 256, EXACT_VERSION, 'must be an exact version');
  const integrity = text(raw.integrity, at('integrity'), 512, SHA512_INTEGRITY, 'must be a sha512 integrity');
  if (source === 'bundled') {
    // A bundled plugin ships inside the runtime: its selection key is its plugin id, its artifact the runtime.
    if (id !== pluginId) fail(at('id'), 'must equal pluginId for a bundled plugin');
    if (pkg !== runtime.package) fail(at('package'), `must be "${runtime.package}" for a bundled plugin`);
    if (version !== runtime.version) fail(at('version'), "must be the runtime's version for a bundled plugin");
    if (integrity !== runtime.integrity) fail(at('integrity'), "must be the runtime's integrity for a bundled plugin");
  } else if (pkg !== id) {
    fail(at('package'), 'must equal id for an npm plugin');
  }
  return { id, pluginId, name, description, source, package: pkg, version, integrity, tools: tools(raw.tools, at('tools')) };
}

/**
 * Validates a catalog (the committed one, or an operator's file) and returns it in canonical
 * form. Pure: throws an OpenClawCatalogError naming the first offending field. Beyond each
 * field's form it checks what consumers rely on: ids sorted and unique, OpenClaw plugin ids
 * unique (two entries may not configure the same `plugins.entries` key), bundled entries
 * pointing at the runtime itself, npm entries keyed by their package name.
 */
export function parseOpenClawCatalog(json: unknown): OpenClawCatalog {
  const root = object(json, [], ['runtime', 'plugins']);
  const rawRuntime = object(root.runtime, ['runtime'], ['package', 'version', 'integrity']);
  if (rawRuntime.package !== 'openclaw') fail(['runtime', 'package'], 'must be "openclaw"');
  const runtime: OpenClawCatalog['runtime'] = {
    package: 'openclaw',
    version: text(rawRuntime.version, ['runtime', 'version'], 256, EXACT_VERSION, 'must be an exact version'),
    integrity: text(rawRuntime.integrity, ['runtime', 'integrity'], 512, SHA512_INTEGRITY, 'must be a sha512 integrity'),
  };
  if (!Array.isArray(root.plugins)) fail(['plugins'], 'must be a list');
  const plugins = root.plugins.map((value, index) => plugin(value, index, runtime));
  const pluginIds = new Map<string, number>();
  plugins.forEach((entry, index) => {
    if (index > 0 && !(plugins[index - 1]!.id < entry.id)) fail(['plugins', index, 'id'], 'must be sorted and unique');
    const previous = pluginIds.get(entry.pluginId);
    if (previous !== undefined) fail(['plugins', index, 'pluginId'], `repeats the plugin id of /plugins/${previous}`);
    pluginIds.set(entry.pluginId, index);
  });
  return { runtime, plugins };
}
