import type { CodexConfigEdit, CodexMcpServerStatus, CodexPluginDetail, CodexTool } from '../src/index.ts';

type Json = Record<string, unknown>;

/** A `plugin/read` detail as the pinned app-server answers it, with only what a case changes. */
export function detail(nativeId: string, apps: string[], overrides: Partial<CodexPluginDetail> = {}): CodexPluginDetail {
  const [pluginName, marketplaceName] = nativeId.split('@') as [string, string];
  return {
    marketplaceName,
    summary: { id: nativeId, name: pluginName, version: '1.0.0', localVersion: null },
    skills: [],
    hooks: [],
    apps: apps.map((id) => ({ id, name: id })),
    appTemplates: [],
    mcpServers: [],
    scheduledTasks: null,
    ...overrides,
  };
}

/** One `codex_apps` tool: owned by `app`, with a catalog action when `action` is given. */
export function tool(name: string, app: string | null, options: { action?: string; readOnly?: boolean } = {}): CodexTool {
  const meta: Json = {};
  if (app !== null) meta.connector_id = app;
  if (app !== null && options.action !== undefined) meta._codex_apps = { resource_uri: `/${app}/target/${options.action}` };
  return { name, annotations: { readOnlyHint: options.readOnly ?? false }, _meta: meta };
}

export function codexApps(tools: CodexTool[], toolsError: string | null = null): CodexMcpServerStatus {
  return { name: 'codex_apps', tools: Object.fromEntries(tools.map((entry) => [entry.name, entry])), toolsError };
}

/** Splits a key path the way Codex does: bare TOML keys and basic strings, joined by dots. */
export function parseKeyPath(keyPath: string): string[] {
  const segments: string[] = [];
  let rest = keyPath;
  while (rest.length > 0) {
    if (rest.startsWith('"')) {
      const end = /^"(?:[^"\\]|\\.)*"/.exec(rest)![0];
      segments.push(JSON.parse(end) as string);
      rest = rest.slice(end.length);
    } else {
      const end = /^[A-Za-z0-9_-]+/.exec(rest)![0];
      segments.push(end);
      rest = rest.slice(end.length);
    }
    if (rest.startsWith('.')) rest = rest.slice(1);
    else if (rest.length > 0) throw new Error(`bad key path ${keyPath}`);
  }
  return segments;
}

/** One configuration layer after `config/batchWrite` replaces each edit's subtree in it. */
export function applyEdits(layer: Json, edits: readonly CodexConfigEdit[]): Json {
  const result = structuredClone(layer);
  for (const { keyPath, value, mergeStrategy } of edits) {
    expectReplace(mergeStrategy);
    const segments = parseKeyPath(keyPath);
    let target = result;
    for (const segment of segments.slice(0, -1)) {
      const next = Object.hasOwn(target, segment) ? target[segment] : undefined;
      if (typeof next !== 'object' || next === null) setOwn(target, segment, {});
      target = target[segment] as Json;
    }
    setOwn(target, segments.at(-1)!, structuredClone(value));
  }
  return result;
}

function expectReplace(strategy: string): void {
  if (strategy !== 'replace') throw new Error(`unexpected merge strategy ${strategy}`);
}

/** Codex's merge of layers: tables merge key by key, the higher layer's value wins otherwise. */
export function mergeLayers(lower: unknown, higher: unknown): unknown {
  if (!isObject(lower) || !isObject(higher)) return higher === undefined ? structuredClone(lower) : structuredClone(higher);
  const merged: Json = structuredClone(lower);
  for (const [key, value] of Object.entries(higher)) {
    setOwn(merged, key, mergeLayers(Object.hasOwn(merged, key) ? merged[key] : undefined, value));
  }
  return merged;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
