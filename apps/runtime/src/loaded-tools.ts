import { isJsonObject } from '@occ/contracts';
import { normalizeNativeName } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import { parseJsonOutput } from './openclaw-cli.ts';
import type { CommandOptions, OpenClawCommands } from './openclaw-commands.ts';

/** What the serving gateway says it loaded: its core tool ids, and each plugin's tool ids. */
export interface LoadedTools {
  core: string[];
  plugins: Record<string, string[]>;
}

/** `tools.catalog`'s answer (`{ groups: [{ source: core|plugin, pluginId?, tools: [{ id }] }] }`); null when it is not that shape. */
export function parseToolsCatalog(value: unknown): LoadedTools | null {
  if (!isJsonObject(value) || !Array.isArray(value.groups)) return null;
  const loaded: LoadedTools = { core: [], plugins: {} };
  for (const group of value.groups) {
    if (!isJsonObject(group) || !Array.isArray(group.tools)) return null;
    const ids = group.tools.map((tool) => (isJsonObject(tool) && typeof tool.id === 'string' ? tool.id : null));
    if (ids.some((id) => id === null)) return null;
    if (group.source === 'plugin' && typeof group.pluginId === 'string') loaded.plugins[group.pluginId] = [...(loaded.plugins[group.pluginId] ?? []), ...(ids as string[])];
    else loaded.core.push(...(ids as string[]));
  }
  return loaded;
}

/**
 * Reads back from the serving gateway which plugins gave the agent tools, and fails the startup
 * (PLUGIN_NOT_SELECTED, naming the plugin) when one of them is neither selected nor turned on by
 * the Configuration itself: whatever put it there (a file in the Agent's state, a gateway that
 * installed it by itself) bypassed every check before readiness. Logs what was loaded.
 */
export async function verifyLoadedTools(cli: OpenClawCommands, gateway: { port: number; token: string }, allowed: ReadonlySet<string>, options: CommandOptions & { deadlineMs: number }): Promise<LoadedTools> {
  // The gateway accepts connections before it answers calls: asked again until the deadline.
  const deadline = Date.now() + options.deadlineMs;
  let loaded: LoadedTools | null = null;
  for (;;) {
    const outcome = await cli.toolsCatalog(gateway.port, gateway.token, options);
    const parsed = outcome.kind === 'exited' && outcome.code === 0 ? parseJsonOutput(outcome.stdout) : { ok: false as const };
    loaded = parsed.ok ? parseToolsCatalog(parsed.value) : null;
    if (loaded !== null) break;
    logEvent('gateway.tools.unreadable', { outcome: outcome.kind });
    // An answer of the wrong shape will not improve; only a gateway not answering yet is asked again.
    const answered = outcome.kind === 'exited' && outcome.code === 0;
    if (answered || Date.now() >= deadline || options.signal?.aborted) throw new StartupFailure('GATEWAY_START_FAILED', 'The gateway did not say which tools it loaded.');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  logEvent('gateway.tools', { plugins: Object.entries(loaded.plugins).map(([pluginId, tools]) => `${pluginId}: ${tools.join(' ')}`), core: loaded.core });
  const unselected = Object.keys(loaded.plugins).filter((pluginId) => !allowed.has(normalizeNativeName(pluginId)) && loaded.plugins[pluginId]!.length > 0);
  if (unselected.length > 0) {
    logEvent('gateway.tools.unselected', { pluginIds: unselected });
    throw new StartupFailure('PLUGIN_NOT_SELECTED', `The gateway loaded plugin ${unselected.sort().join(', ')} with tools, which no selection names.`.slice(0, 256));
  }
  return loaded;
}
