import type { Harness, PluginMap } from '@occ/contracts';
import { invalid } from '../errors.ts';
import type { PluginDriverRegistry } from '../ports/plugin-driver.ts';

const NOT_IN_CATALOG_MESSAGE = 'The plugin catalog does not offer the selected plugin.';

/**
 * Save-time catalog membership: a selection the harness's catalog does not offer is refused
 * when the Agent is saved, by the rule the deploy's dry run and the runtime's plan apply, rather
 * than by a deploy that fails at startup. Only for a catalog known without I/O (the curated
 * one); the pointer in each detail names the plugin (the message is fixed text).
 */
export function refuseUncataloguedPlugins(drivers: PluginDriverRegistry, harness: Harness, plugins: PluginMap): void {
  const found = drivers[harness]?.uncataloguedSelections?.(plugins) ?? [];
  if (found.length > 0)
    throw invalid(
      NOT_IN_CATALOG_MESSAGE,
      found.map(({ path, code }) => ({ path, code })),
    );
}
