import type { PluginCatalogTool } from '@occ/contracts';
import { displayText, identifier, invalid, optionalArray, optionalBoolean, optionalString, record } from './wire.ts';

const MAX_TOOLS = 10000;
const MAX_BATCH_APPS = 1000;
const APP_STATUSES_IN_USE = new Set(['ENABLED', 'ONLY_ME']);
const TOOL_UNAVAILABLE = 'The app providing this tool is not enabled for the account.';

/**
 * Maps a `POST ps/apps/batch {app_ids, include_tools:true}` answer to the plugin's tools:
 * id `enc(appId)/enc(name)`, owner the app, sorted by id. A requested app that is missing, or
 * that came without a tool list, leaves the inventory unknown (`null`).
 */
export function readTools(appIds: readonly string[], raw: unknown): PluginCatalogTool[] | null {
  const apps = optionalArray(record(raw).apps, MAX_BATCH_APPS) ?? invalid();
  const byId = new Map<string, ReturnType<typeof record>>();
  for (const app of apps.map(record)) {
    const id = identifier(app.id, 256);
    if (!byId.has(id)) byId.set(id, app);
  }
  const tools = new Map<string, PluginCatalogTool>();
  for (const appId of appIds) {
    const app = byId.get(appId);
    const listed = app && optionalArray(app.tools, MAX_TOOLS);
    if (!app || !listed) return null;
    const appInUse = APP_STATUSES_IN_USE.has(optionalString(app.status) ?? '') && optionalBoolean(app.is_enabled) !== false;
    for (const rawTool of listed) {
      const wire = record(rawTool);
      const name = identifier(wire.name, 512);
      const id = `${encodeURIComponent(appId)}/${encodeURIComponent(name)}`;
      if (id.length > 1024) return invalid();
      if (tools.has(id)) continue;
      const available = appInUse && optionalBoolean(wire.is_enabled) !== false;
      const tool: PluginCatalogTool = { id, ownerId: appId, name, available };
      const description = displayText(wire.description, 4096);
      if (description !== undefined) tool.description = description;
      if (!available) tool.unavailableReason = TOOL_UNAVAILABLE;
      const readOnly = optionalBoolean(wire.is_read_only);
      if (readOnly !== undefined) tool.writes = !readOnly;
      tools.set(id, tool);
      if (tools.size > MAX_TOOLS) return invalid();
    }
  }
  return [...tools.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
