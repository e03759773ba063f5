import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { violation } from '../shared-rules.ts';
import { codexToolSetting, destructiveEnabled, type CodexToolSetting } from './app-policy.ts';
import type { CodexMcpServerStatus, CodexTool } from './native-types.ts';
import type { CodexInstallPlan, CodexInstallRow } from './plan.ts';

/** The MCP server through which Codex serves every hosted app's tools. */
export const CODEX_APPS_SERVER = 'codex_apps';

/** Per app id: native tool name → the settings the policy asks for (only tools it names). */
export type CodexAppToolSettings = ReadonlyMap<string, Readonly<Record<string, CodexToolSetting>>>;

export type CodexToolBindingResult = { ok: true; toolSettings: CodexAppToolSettings } | { ok: false; violations: PolicyViolation[] };

export interface CodexToolBindingInput {
  plan: CodexInstallPlan;
  /** Every server of every `mcpServerStatus/list` page, in order. Unread when no policy names a tool. */
  inventory: readonly CodexMcpServerStatus[];
  /** Selections whose install failed: their apps are disabled, so their tool ids are not bound. */
  failures?: ReadonlySet<string>;
}

interface InventoryTool {
  tool: CodexTool;
  /** `_meta.connector_id`: the app that owns the tool, if any. */
  app: string | null;
  aliases: string[];
  destructive: boolean;
}

/** Selections whose tool ids must be bound: enabled, installed, with at least one tool policy. */
function bindingRows(plan: CodexInstallPlan, failures: ReadonlySet<string>): CodexInstallRow[] {
  return plan.rows.filter((row) => row.enabled && !failures.has(row.selectionKey) && Object.keys(row.selection.tools ?? {}).length > 0);
}

/** Whether the runtime must fetch `mcpServerStatus/list` before codexAppToolSettings. */
export function codexToolInventoryNeeded(plan: CodexInstallPlan, failures: ReadonlySet<string> = new Set()): boolean {
  return bindingRows(plan, failures).length > 0;
}

/**
 * Binds each tool policy to one native tool of the `codex_apps` inventory. A policy's tool
 * id is the native tool name or a catalog alias: `enc(app)/enc(tool name)`, and, when the tool's
 * `_meta._codex_apps.resource_uri` is `/<app>/<target>/<action>`, `enc(app)/enc(action)`
 * (enc = encodeURIComponent of the decoded segment). A tool belongs to a selection when its
 * `_meta.connector_id` is one of the selection's apps. Unknown, unowned, ambiguous (one alias,
 * several tools) and duplicate (two ids, one tool) ids are violations, so startup fails.
 *
 * Tool enablement cannot bypass a category: with `driverPolicy.destructiveEnabled: false`
 * a tool policy `enabled: true` on a tool that may be destructive is refused. Refused rather than
 * silently dropped, so the operator learns the tool will not run instead of finding out at a turn;
 * a tool may be destructive unless its MCP annotations say `readOnlyHint: true` or
 * `destructiveHint: false` (the MCP defaults).
 */
export function codexAppToolSettings({ plan, inventory, failures = new Set() }: CodexToolBindingInput): CodexToolBindingResult {
  const rows = bindingRows(plan, failures);
  if (rows.length === 0) return { ok: true, toolSettings: new Map() };
  const read = readInventory(inventory);
  if (!read.ok) return read;
  const violations: PolicyViolation[] = [];
  const settings = new Map<string, Record<string, CodexToolSetting>>();
  for (const row of rows) {
    const bound = new Map<string, string>();
    for (const toolId of Object.keys(row.selection.tools ?? {}).sort()) {
      const path = pointer('plugins', row.selectionKey, 'tools', toolId);
      const matches = read.tools.filter(({ tool, aliases }) => tool.name === toolId || aliases.includes(toolId));
      const found = matches.length === 1 ? matches[0]! : undefined;
      if (matches.length === 0) {
        violations.push(violation(path, 'INVALID_VALUE', 'No tool of the codex_apps inventory has this id.'));
      } else if (found === undefined) {
        violations.push(violation(path, 'INVALID_VALUE', 'This id names more than one codex_apps tool.'));
      } else if (found.app === null || !row.apps.includes(found.app)) {
        violations.push(violation(path, 'INVALID_COMBINATION', 'The tool does not belong to any app of this plugin.'));
      } else if (bound.has(found.tool.name)) {
        const message = `Tool id ${JSON.stringify(bound.get(found.tool.name))} already names the same tool.`;
        violations.push(violation(path, 'DUPLICATE_VALUE', message));
      } else {
        bound.set(found.tool.name, toolId);
        const setting = codexToolSetting(row.selection, toolId);
        if (setting.enabled === true && found.destructive && destructiveEnabled(row.selection) === false) {
          const message = 'The tool may be destructive and driverPolicy.destructiveEnabled is false, so it cannot be enabled.';
          violations.push(violation(pointer('plugins', row.selectionKey, 'tools', toolId, 'enabled'), 'INVALID_COMBINATION', message));
        }
        // A shared app's selections agree on every tool policy (codexInstallPlan), so the last write equals the first.
        if (Object.keys(setting).length > 0) {
          const appSettings = settings.get(found.app) ?? {};
          settings.set(found.app, { ...appSettings, [found.tool.name]: setting });
        }
      }
    }
  }
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, toolSettings: settings };
}

function readInventory(inventory: readonly CodexMcpServerStatus[]): { ok: true; tools: InventoryTool[] } | { ok: false; violations: PolicyViolation[] } {
  const refuse = (message: string) => ({ ok: false as const, violations: [violation('', 'INVALID_VALUE', message)] });
  const servers = inventory.filter((server) => server.name === CODEX_APPS_SERVER);
  if (servers.length !== 1) return refuse(`The app-server listed ${servers.length} codex_apps servers, not exactly one.`);
  const server = servers[0]!;
  if (server.toolsError !== null) return refuse('The app-server could not list the codex_apps tools.');
  const tools: InventoryTool[] = [];
  for (const [name, tool] of Object.entries(server.tools)) {
    if (tool === undefined) continue;
    if (tool.name !== name) return refuse(`The codex_apps tool listed as ${JSON.stringify(name)} names itself otherwise.`);
    tools.push(describeTool(tool));
  }
  return { ok: true, tools };
}

function describeTool(tool: CodexTool): InventoryTool {
  const meta = isJsonObject(tool._meta) ? tool._meta : {};
  const app = typeof meta.connector_id === 'string' ? meta.connector_id : null;
  const aliases: string[] = [];
  if (app !== null) {
    aliases.push(`${encodeURIComponent(app)}/${encodeURIComponent(tool.name)}`);
    const action = resourceAction(meta._codex_apps, app);
    if (action !== null) aliases.push(`${encodeURIComponent(app)}/${encodeURIComponent(action)}`);
  }
  const annotations = isJsonObject(tool.annotations) ? tool.annotations : {};
  const destructive = annotations.readOnlyHint !== true && annotations.destructiveHint !== false;
  return { tool, app, aliases, destructive };
}

/** The `<action>` of `resource_uri` `/<app>/<target>/<action>` when `<app>` is the tool's own app. */
function resourceAction(codexApps: unknown, app: string): string | null {
  if (!isJsonObject(codexApps) || typeof codexApps.resource_uri !== 'string') return null;
  const segments = codexApps.resource_uri.split('/');
  if (segments.length !== 4 || segments[0] !== '' || segments.slice(1).some((segment) => segment === '')) return null;
  try {
    const [connector, , action] = segments.slice(1).map((segment) => decodeURIComponent(segment));
    return connector === app ? action! : null;
  } catch {
    return null; // a malformed escape: the tool keeps its name alias only
  }
}
