import { HARNESSES, type Harness } from '@occ/contracts';
import type { PluginDriver, PluginDriverRegistry } from '../core/ports/plugin-driver.ts';
import { codexHostedDiscoveryOptionsFromEnv, createCodexHostedDriver } from '../drivers/plugin/codex-hosted/index.ts';
import { createOpenClawCuratedDriver, openclawCatalogFromEnv } from '../drivers/plugin/openclaw-curated/index.ts';
import { unselectedPluginsSetting } from './unselected-plugins.ts';

const FACTORIES: Record<string, () => PluginDriver> = {
  // OCC_OPENCLAW_CATALOG replaces the committed curated catalog (read and validated here, at startup).
  // OCC_OPENCLAW_UNSELECTED_PLUGINS as the runtimes get it, so a dry run translates as they will.
  'openclaw-curated': () => createOpenClawCuratedDriver({ catalog: openclawCatalogFromEnv(), unselectedPlugins: unselectedPluginsSetting(process.env) }),
  // OCC_CODEX_CATALOG_URL, OCC_CODEX_IDENTITY_URL, OCC_CODEX_CA_FILE, OCC_DISCOVERY_CURSOR_KEY (read at startup).
  'codex-hosted': () => createCodexHostedDriver({ discovery: codexHostedDiscoveryOptionsFromEnv() }),
};

const DEFAULT_PLUGIN_DRIVERS: Record<Harness, string> = { openclaw: 'openclaw-curated', codex: 'codex-hosted' };

/** `none` leaves a harness without a PluginDriver: non-empty plugin maps then answer 501. */
export type PluginDriverSelection = Partial<Record<Harness, string>>;

/**
 * Parses OCC_PLUGIN_DRIVERS, e.g. `openclaw=openclaw-curated,codex=none`. Harnesses not named
 * keep their default driver.
 */
export function parsePluginDriverSelection(value: string | undefined): PluginDriverSelection {
  const selection: PluginDriverSelection = {};
  for (const part of (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [harness, driver] = part.split('=').map((s) => s.trim());
    if (!harness || !driver || !(HARNESSES as readonly string[]).includes(harness)) throw new Error(`OCC_PLUGIN_DRIVERS: cannot read "${part}"`);
    selection[harness as Harness] = driver;
  }
  return selection;
}

export function createPluginDrivers(selection: PluginDriverSelection = {}): PluginDriverRegistry {
  const registry: PluginDriverRegistry = {};
  for (const harness of HARNESSES) {
    const id = selection[harness] ?? DEFAULT_PLUGIN_DRIVERS[harness];
    if (id === 'none') continue;
    const factory = FACTORIES[id];
    if (!factory) throw new Error(`Unknown PluginDriver "${id}" for harness ${harness}`);
    const driver = factory();
    if (driver.harness !== harness) throw new Error(`PluginDriver "${id}" serves harness ${driver.harness}, not ${harness}`);
    registry[harness] = driver;
  }
  return registry;
}
